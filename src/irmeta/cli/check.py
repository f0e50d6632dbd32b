"""``irmeta check``: check run files as a campaign's submissions (docs/check.md)."""

from __future__ import annotations

import json

import click

from irmeta.cli.common import open_output, output_option
from irmeta.cli.options import constrained, constrained_choice
from irmeta.constraints import CHECK_FORMATS, DEPTH, RUNS_PER_GROUP

#: exit status when a run has an error: its own, since 1 is irmeta's internal-error status
#: and 2 the usage / unreadable-argument status (docs/check.md, "Exit status")
EXIT_ERRORS = 3


@click.command("check", context_settings={"show_default": True})
@click.argument("runs", nargs=-1, required=True)
@click.option("--qrels", default=None, metavar="QRELS",
              help="The topic set is the topics of this qrels file.")
@click.option("--topics", default=None, metavar="FILE",
              help="The topic set: a file with one topic id per line.")
@constrained("--depth", constraint=DEPTH, default=None,
             help="The most documents a run may give per topic.")
@click.option("--groups", default=None, metavar="FILE",
              help="Groups file (run group per line), with --max-runs-per-group.")
@constrained("--max-runs-per-group", constraint=RUNS_PER_GROUP, default=None,
             help="The most runs one group may submit (with --groups).")
@click.option("--docids", default=None, metavar="FILE",
              help="The collection's document ids, one per line.")
@constrained_choice("--format", "fmt", constraint=CHECK_FORMATS, default="text",
                    show_default=True, help="text (one line per problem) or json.")
@output_option()
def check_command(runs, qrels, topics, depth, groups, max_runs_per_group, docids, fmt,
                  output):
    """Check RUN files as submissions: every problem of every file.

    \b
    Exit status: 0 when every run passes (warnings allowed), 3 when a run has an
    error, 2 for a usage error or an unreadable --qrels/--topics/--groups/--docids.

    \b
    Examples:
      irmeta check runs/*.gz --qrels qrels.txt --depth 1000
      irmeta check run.txt --topics topics.txt --groups groups.txt --max-runs-per-group 3
    """
    from irmeta.submissions import check

    if (qrels is None) == (topics is None):
        raise click.UsageError("give the topic set: exactly one of --qrels and --topics")
    if (groups is None) != (max_runs_per_group is None):
        raise click.UsageError("--groups and --max-runs-per-group go together")
    results = check(list(runs), qrels=qrels, topics=topics, depth=depth, groups=groups,
                    max_runs_per_group=max_runs_per_group, docids=docids)
    with open_output(output) as fh:
        if fmt == "json":
            json.dump([r.to_dict() for r in results], fh, indent=1)
            fh.write("\n")
        else:
            fh.write(render_text(results))
    if not all(r.ok for r in results):
        raise click.exceptions.Exit(EXIT_ERRORS)


def render_text(results) -> str:
    """One line per problem, ``file:line: severity rule [topic T]: message``, then a
    verdict per file."""
    from irmeta.submissions import ERROR, RULES

    out = []
    for r in results:
        for p in r.problems:
            where = r.file + (f":{p.line}" if p.line is not None else "")
            topic = f" [topic {p.topic}]" if p.topic is not None else ""
            out.append(f"{where}: {p.severity} {p.rule}{topic}: {p.message}")
        for rule, count in r.omitted.items():
            out.append(f"{r.file}: {rule}: ... and {count:,} more")
        errors = sum(p.severity == ERROR for p in r.problems) + sum(
            c for rule, c in r.omitted.items() if RULES[rule][0] == ERROR)
        warnings = sum(p.severity != ERROR for p in r.problems) + sum(
            c for rule, c in r.omitted.items() if RULES[rule][0] != ERROR)
        verdict = "ok" if r.ok else "FAILED"
        out.append(f"{r.file}: {verdict} (run {r.run or '-'}; {errors:,} errors, "
                   f"{warnings:,} warnings)")
    return "\n".join(out) + "\n"
