#!/usr/bin/env python3
"""Where the CPU of the DL21 report goes, against its reference (issue 27, target 3).

Target: ``irmeta report`` on the 63 TREC DL 2021 passage runs (``-l 2``, the groups of
``scripts/dl21_groups.py``) spends at most 1.5x the CPU time of *the reference*:

* ``irmeta eval`` of every measure the report shows (the leaderboard columns, the
  innovation section's alpha sweep, the gain / matrix measure when not a column), as a
  whole process (``-c -l 2 --groups``), plus
* the report's resampling done through the public API at the same trial counts and
  seeds: discriminative power (``stats.bootstrap_power``), stability
  (``stats.stability_table``), the leaderboard's intervals and tests
  (``stats.leaderboard.leaderboard``) and the reusability part
  (``stats.reusability.reusability``), each timed around its call (the imports it
  triggers, e.g. ``scipy.stats``, included), in a process that loaded the campaign.

CPU = user + system seconds of every process (``os.wait4`` on each whole process, so
the children a report forks are included). The report's share per category comes from
an instrumented run of :func:`irmeta.report.campaign_report` (the CLI's function, same
options): wrappers on the library functions record *exclusive* CPU seconds per category
(a nested wrapped call counts for the inner category; an import of a new module counts
as ``imports`` wherever it happens), in the parent and in every forked child:

  (a) imports, (b) loading the campaign, (c) evaluation of every measure shown (the
  leaderboard's ``evaluate``, the per-topic pieces), (d) resampling: discpower,
  stability, significance (intervals + tests), reusability, (e) figures (building in
  the parent, drawing PNG/SVG in the children), (f) tables/HTML (TSV, HTML tables, the
  page, the zip, the Parquet matrices), (g) process overhead: interpreter start, the
  forked children's CPU outside the function they run (copy-on-write faults, pickling,
  exit), and the rest of the analysis (ranks, GAWM, taus: ``other``).

Every process is run ``--repeat`` times, alternating report and reference; the table
gives the minimum per figure, and the 1-minute load average is printed next to them.

Usage (from the project root, one command)::

    PYTHONPATH=$PWD/src /work/main/.venv/bin/python benchmarks/bench_report_cpu.py \\
        [--shared ../shared/data] [--repeat 3] [--json out.json] [--baseline OLD/src]

``--baseline OLD/src`` also runs the report of an earlier irmeta (its ``src`` folder, e.g.
``git archive COMMIT src | tar -x -C /tmp/old``) in every round, alternating with this
one: the before/after columns of the breakdown.

Nothing here is imported by irmeta or its tests.
"""

from __future__ import annotations

import argparse
import builtins
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

CATEGORIES = ("imports", "load", "evaluate", "pieces", "discpower", "stability",
              "significance", "reusability", "figures: build", "figures: draw",
              "tables", "html", "other")


# ------------------------------------------------------------------ instrumentation
class Profiler:
    """Exclusive CPU seconds per category: a stack of active categories; entering a
    category pauses the one below. Children write their totals to ``log`` at the end
    of the job function (they leave by ``os._exit``)."""

    def __init__(self, log: Path):
        self.log = log
        self.stack: list[list] = []            # [category, start cpu, nested cpu]
        self.totals: dict[str, float] = {}
        self.child = False

    def enter(self, cat):
        self.stack.append([cat, time.process_time(), 0.0])

    def leave(self):
        cat, start, nested = self.stack.pop()
        spent = time.process_time() - start
        self.totals[cat] = self.totals.get(cat, 0.0) + spent - nested
        if self.stack:
            self.stack[-1][2] += spent

    def wrap(self, cat, fn):
        @functools.wraps(fn)
        def inner(*a, **k):
            self.enter(cat)
            try:
                return fn(*a, **k)
            finally:
                self.leave()
        return inner

    def patch(self, module, name, cat):
        import importlib
        mod = importlib.import_module(module)
        setattr(mod, name, self.wrap(cat, getattr(mod, name)))

    def patch_method(self, cls, name, cat):
        setattr(cls, name, self.wrap(cat, getattr(cls, name)))

    def hook_imports(self):
        real = builtins.__import__
        prof = self

        def imp(name, globals=None, locals=None, fromlist=(), level=0):
            if level == 0 and name in sys.modules and not fromlist:
                return real(name, globals, locals, fromlist, level)
            before = len(sys.modules)
            prof.enter("imports")
            try:
                return real(name, globals, locals, fromlist, level)
            finally:
                if len(sys.modules) == before:       # nothing new: not an import's cost
                    cat, start, nested = prof.stack.pop()
                    if prof.stack:
                        prof.stack[-1][2] += nested
                else:
                    prof.leave()
        builtins.__import__ = imp


def instrument(prof: Profiler):
    """Wrap the report's steps (the module attributes the report looks up at call time)."""
    from irmeta.report import analysis, assemble, html, jobs
    prof.patch("irmeta.evaluation", "evaluate", "evaluate")
    prof.patch("irmeta.report.pieces", "topic_pieces", "pieces")
    prof.patch("irmeta.stats", "bootstrap_power", "discpower")
    prof.patch("irmeta.stats", "stability_table", "stability")
    prof.patch("irmeta.stats.leaderboard", "leaderboard", "significance")
    prof.patch("irmeta.stats.reusability", "reusability", "reusability")
    for mod, names in {"irmeta.plot.meta": ("leaderboard_plot", "alpha_sweep_plot"),
                       "irmeta.report.figures": ("scatter_by_group", "rank_slope", "bars",
                                                 "correlation_heatmap"),
                       "irmeta.plot.effort": ("plot_crp_dcg_panels", "plot_effort_gain"),
                       "irmeta.plot.gawm": ("plot_heatmap_bars",)}.items():
        for name in names:
            prof.patch(mod, name, "figures: build")
    prof.patch("irmeta.report.html", "save_figure", "figures: draw")
    prof.patch_method(html.ReportWriter, "_figure_in_child", "figures: draw")
    prof.patch_method(html.ReportWriter, "table", "tables")
    prof.patch_method(html.ReportWriter, "write_tsv", "tables")
    prof.patch_method(html.ReportWriter, "render", "html")
    prof.patch("irmeta.report.assemble", "write_matrices", "tables")
    prof.patch("irmeta.report.assemble", "write_paper_tables", "tables")
    real_call = jobs._call

    def child_call(fn, args, kwargs):
        # in the forked child: fresh totals, its own CPU clock (fork resets it)
        prof.stack, prof.totals, prof.child = [], {}, True
        prof.enter("other")
        try:
            return real_call(fn, args, kwargs)
        finally:
            prof.leave()
            with open(prof.log, "a") as fh:
                fh.write(json.dumps({"pid": os.getpid(), "fn": getattr(fn, "__name__", "?"),
                                     "totals": prof.totals}) + "\n")
    jobs._call = child_call
    del analysis, assemble


def report_worker(shared: Path, out: Path, log: Path) -> dict:
    prof = Profiler(log)
    prof.hook_imports()
    prof.enter("other")
    prof.enter("imports")
    import irmeta
    from irmeta.report import ReportOptions, campaign_report
    prof.leave()
    instrument(prof)
    base = shared / "trec-dl-2021-passage"
    qrels, runs = base / "qrels" / "qrels.dl21-passage.txt", sorted((base / "runs").glob("*.gz"))
    prof.enter("load")
    campaign = irmeta.load_campaign(qrels, runs, warn_dropped=False)
    prof.leave()
    groups = _dl21_groups(campaign.runs)
    rep = campaign_report(campaign, out, groups=groups,
                          options=ReportOptions(rel_level=2, progress=False),
                          inputs={"qrels": qrels, "runs": runs})
    prof.leave()
    kids = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    ru = _rusage_children()
    a = rep.analysis
    shown = [c.measure for c in a.leaderboard.columns]
    from irmeta.report.analysis import piece_spec
    spec = piece_spec(a.options, list(a.leaderboard.columns), groups, None)
    shown += [m for m in spec.sweep if m not in shown]
    shown += [m for m in (spec.gain, spec.matrix) if m and m not in shown]
    return {"parent": prof.totals, "children": kids, "children_cpu": ru,
            "shown": shown, "options": {k: str(v) for k, v in a.options.items()},
            "primary": a.leaderboard.primary}


def reference_worker(shared: Path, log: Path, one_thread: bool = False) -> dict:
    """The report's resampling through the public API, each call timed (imports it
    triggers included). ``one_thread``: under ``threadpool_limits(1, "blas")``, as the
    report computes them (``report.assemble._one_blas_thread``)."""
    if one_thread:
        import numpy  # noqa: F401 - threadpoolctl limits only the libraries already loaded
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
        with threadpool_limits(limits=1, user_api="blas"):
            return reference_worker(shared, log)
    prof = Profiler(log)
    prof.hook_imports()
    prof.enter("other")
    import irmeta
    from irmeta import stats
    from irmeta.report import ReportOptions
    from irmeta.report.analysis import check_inputs, choose_defaults, trust_matrices
    from irmeta.report.columns import leaderboard_columns
    base = shared / "trec-dl-2021-passage"
    qrels, runs = base / "qrels" / "qrels.dl21-passage.txt", sorted((base / "runs").glob("*.gz"))
    campaign = irmeta.load_campaign(qrels, runs, warn_dropped=False)
    groups = _dl21_groups(campaign.runs)
    opts = ReportOptions(rel_level=2, progress=False).validate()
    groups, own, prior, _ = check_inputs(campaign, opts, groups, None, None, "bench")
    d = choose_defaults(campaign, opts)
    from dataclasses import replace
    opts = replace(opts, primary=d.primary, twist_depth=d.twist_depth)
    columns = leaderboard_columns(opts, prior, depth=d.depth, primary=d.primary)
    res = irmeta.evaluate(campaign, measures=[c.measure for c in columns], groups=groups,
                          rel_level=2, complete=True)
    mats = trust_matrices(res, columns)
    primary = res.matrix(0).dropna(axis=1, how="any")
    out = {}

    def timed(name, fn, *a, **k):
        t = time.process_time()
        fn(*a, **k)
        out[name] = time.process_time() - t
    timed("discpower", stats.bootstrap_power, mats, level=opts.level,
          trials=opts.discpower_trials, seed=opts.seed, progress=False)
    timed("stability", stats.stability_table, mats, trials=opts.stability_trials,
          fuzziness=opts.fuzziness, seed=opts.seed, classic=True, progress=False)
    from irmeta.stats.leaderboard import leaderboard
    timed("significance", leaderboard, primary, test=opts.test, correction=opts.correction,
          level=opts.level, ci_level=opts.ci_level, trials=opts.ci_trials, seed=opts.seed)
    from irmeta.stats.reusability import reusability
    timed("reusability", reusability, campaign, [d.primary], groups, depth=opts.rare_cutoff,
          rel_level=2)
    return out


def _dl21_groups(runs) -> dict:
    import importlib.util
    spec = importlib.util.spec_from_file_location("dl21_groups",
                                                  ROOT / "scripts" / "dl21_groups.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return {r: mod.group_of(r) for r in runs}


def _rusage_children() -> float:
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# ------------------------------------------------------------------ driver
def timed_process(cmd, env=None) -> tuple[float, float, str]:
    """(wall s, CPU s of the process and every child it waited for (``os.wait4``),
    stdout) of ``cmd``."""
    w = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=env or dict(os.environ, IRMETA_NO_PROGRESS="1"))
    text = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - w
    if status != 0:
        raise SystemExit(f"{' '.join(map(str, cmd[:5]))} ... failed (status {status})")
    return wall, ru.ru_utime + ru.ru_stime, text


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("report-worker", "reference-worker", "reference-worker-1"):
        import warnings
        warnings.simplefilter("ignore")          # Twist's undefined topics: stated on the page
        shared, tmp = Path(argv[1]), Path(argv[2])
        res = (report_worker(shared, tmp / "report.html", tmp / "children.jsonl")
               if argv[0] == "report-worker" else
               reference_worker(shared, tmp / "ref.jsonl", argv[0] == "reference-worker-1"))
        print(json.dumps(res))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--baseline", type=Path, default=None,
                    help="a src/ folder of an earlier irmeta: its report is run alternately "
                         "with this one (PYTHONPATH=BASELINE), the reference with this one")
    args = ap.parse_args(argv)
    py = sys.executable
    base = args.shared / "trec-dl-2021-passage"
    qrels, runs = base / "qrels" / "qrels.dl21-passage.txt", sorted((base / "runs").glob("*.gz"))
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        groups_file = tmp / "dl21.groups"
        subprocess.run([py, str(ROOT / "scripts" / "dl21_groups.py"), str(base / "runs"),
                        str(groups_file)], check=True, stdout=subprocess.DEVNULL)
        shown = None
        variants = [("branch", os.environ.get("PYTHONPATH", ""))]
        if args.baseline:
            variants.append(("baseline", str(args.baseline.resolve())))
        for k in range(args.repeat):
            r = {"load_before": load()}
            for name, path in variants:
                env = dict(os.environ, PYTHONPATH=path, IRMETA_NO_PROGRESS="1")
                # 1. the real command, whole process tree
                cli = [py, "-m", "irmeta.cli.main", "report", "-l", "2", str(qrels),
                       *map(str, runs), "--groups", str(groups_file),
                       "-o", str(tmp / f"{name}{k}" / "dl21.html"), "--no-progress"]
                r[f"{name}_cli_wall"], r[f"{name}_cli_cpu"], _ = timed_process(cli, env)
                # 2. the instrumented report
                wdir = tmp / f"{name}-w{k}"
                wdir.mkdir()
                w, c, text = timed_process([py, __file__, "report-worker", str(args.shared),
                                            str(wdir)], env)
                r[f"{name}_report_cpu"] = c
                r[f"{name}_report"] = json.loads(text.strip().splitlines()[-1])
            shown = r["branch_report"]["shown"]
            # 3. the reference: irmeta eval of every measure shown ...
            ev = [py, "-m", "irmeta.cli.main", "eval", "-c", "-l", "2", "--groups",
                  str(groups_file), str(qrels), *map(str, runs)]
            for m in shown:
                ev += ["-m", m]
            r["eval_wall"], r["eval_cpu"], _ = timed_process(ev)
            # ... plus the resampling through the API (default threads; one BLAS thread)
            for worker, key in (("reference-worker", "resampling"),
                                ("reference-worker-1", "resampling_1")):
                rdir = tmp / f"{key}{k}"
                rdir.mkdir()
                _, _, text = timed_process([py, __file__, worker, str(args.shared), str(rdir)])
                r[key] = json.loads(text.strip().splitlines()[-1])
            r["load_after"] = load()
            rounds.append(r)
            print(f"round {k + 1}: load {r['load_before']}-{r['load_after']}: "
                  + "; ".join(f"{n} report CLI {r[n + '_cli_cpu']:.2f} CPU-s "
                              f"({r[n + '_cli_wall']:.1f} s wall)" for n, _ in variants)
                  + f"; eval {r['eval_cpu']:.2f} + resampling "
                  f"{sum(r['resampling'].values()):.2f} (one BLAS thread: "
                  f"{sum(r['resampling_1'].values()):.2f})", file=sys.stderr)
    print(table(rounds, shown, [n for n, _ in variants]))
    if args.json:
        args.json.write_text(json.dumps(rounds, indent=1))
    return 0


def breakdown(r, name) -> dict[str, float]:
    """Category -> CPU-s of one instrumented report run (parent + children)."""
    rep = r[f"{name}_report"]
    cats = {c: 0.0 for c in CATEGORIES}
    for c, v in rep["parent"].items():
        cats[c] = cats.get(c, 0.0) + v
    inside = 0.0
    for kid in rep["children"]:
        for c, v in kid["totals"].items():
            cats[c] = cats.get(c, 0.0) + v
            inside += v
    measured = sum(rep["parent"].values())
    cats["process: children outside their function (fork, pickling, exit)"] = \
        max(rep["children_cpu"] - inside, 0.0)
    cats["process: interpreter start and exit"] = \
        max(r[f"{name}_report_cpu"] - rep["children_cpu"] - measured, 0.0)
    return cats


def table(rounds, shown, names) -> str:
    def low(key):
        return min(r[key] for r in rounds)
    res = {k: min(r["resampling"][k] for r in rounds) for k in rounds[0]["resampling"]}
    res1 = {k: min(r["resampling_1"][k] for r in rounds) for k in rounds[0]["resampling_1"]}
    ref, ref1 = low("eval_cpu") + sum(res.values()), low("eval_cpu") + sum(res1.values())
    loads = ", ".join(f"{r['load_before']}-{r['load_after']}" for r in rounds)
    lines = [f"DL21 report vs reference, {len(rounds)} alternating rounds, 1-minute load "
             f"{loads}; CPU-s = user + system of all processes, minimum over the rounds\n",
             f"measures shown ({len(shown)}): {', '.join(shown)}\n",
             "| report: category (CPU-s, min over rounds) | " + " | ".join(names) + " |",
             "|---|" + "---:|" * len(names)]
    rows = {n: [breakdown(r, n) for r in rounds] for n in names}
    for c in rows[names[0]][0]:
        lines.append(f"| {c} | " + " | ".join(
            f"{min(row.get(c, 0.0) for row in rows[n]):.2f}" for n in names) + " |")
    lines += ["| **instrumented report, whole process tree** | " + " | ".join(
                  f"{low(n + '_report_cpu'):.2f}" for n in names) + " |",
              "| **`irmeta report` CLI, whole process tree** | " + " | ".join(
                  f"{low(n + '_cli_cpu'):.2f}" for n in names) + " |",
              "| `irmeta report` CLI, wall s | " + " | ".join(
                  f"{low(n + '_cli_wall'):.2f}" for n in names) + " |", "",
              "| reference (CPU-s, min over rounds) | default threads | one BLAS thread |",
              "|---|---:|---:|",
              f"| `irmeta eval -c -l 2 --groups` of the {len(shown)} measures (whole process) "
              f"| {low('eval_cpu'):.2f} | {low('eval_cpu'):.2f} |"]
    for k, v in res.items():
        lines.append(f"| API: {k} | {v:.2f} | {res1[k]:.2f} |")
    lines += [f"| **reference total** | {ref:.2f} | {ref1:.2f} |", ""]
    for n in names:
        cli = low(n + "_cli_cpu")
        lines.append(f"**{n}: report CLI / reference = {cli / ref:.2f}** with the API at its "
                     f"default threads, **{cli / ref1:.2f}** with one BLAS thread (target <= 1.5)")
    lines.append(f"\nwall: `irmeta eval` {low('eval_wall'):.2f} s")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
