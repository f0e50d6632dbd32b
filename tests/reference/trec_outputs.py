"""Read trec_eval output files and compare them with irmeta's results.

Which printed names irmeta implements, and which are counts, comes from the measure
registry (the trec_eval names declared on each measure), not from a list kept here.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import irmeta
from irmeta.measures.parse import is_trec_name, parse_measure


def supported(name: str) -> bool:
    return is_trec_name(name) and name not in ("runid", "relstring")


def is_integer(name: str) -> bool:
    return parse_measure(name)[0].definition.integer


def read_trec_output(path: Path) -> dict[tuple[str, str], str]:
    """{(measure, topic): printed value} of a trec_eval output (gzip or plain)."""
    opener = gzip.open if path.suffix == ".gz" else open
    out = {}
    with opener(path, "rt") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3:
                continue
            out[(parts[0].strip(), parts[1].strip())] = parts[2].strip()
    return out


def trec_format(name: str, value: float) -> str:
    if is_trec_name(name) and is_integer(name):
        return str(int(round(value)))
    return f"{value:.4f}"


def compare(expected: dict, results, *, per_topic: bool = True,
            skip: tuple[str, ...] = (), skip_names: tuple[str, ...] = ()) -> tuple[int, list[str]]:
    """Compare every supported expected value (names starting with a ``skip`` prefix or
    in ``skip_names`` excepted); returns (number compared, mismatches)."""
    summary = results.aggregate("mean")
    frame = results.to_frame(per_topic=True, aggregate=False)
    got = {(m, t): v for m, t, v in zip(frame["measure"], frame["topic"], frame["value"])}
    checked, bad = 0, []
    printed = set(results.names)
    for (name, topic), text in expected.items():
        if (not (supported(name) or name in printed) or name.startswith(skip or ("\0",))
                or name in skip_names):
            continue
        if topic == "all":
            value = float(summary.loc[results.runs[0], name])
        elif not per_topic:
            continue
        else:
            if (name, topic) not in got:
                bad.append(f"{name} {topic}: missing (expected {text})")
                continue
            value = got[(name, topic)]
        checked += 1
        if trec_format(name, value) != text:
            bad.append(f"{name} {topic}: irmeta {trec_format(name, value)} trec_eval {text}")
    return checked, bad


def measures_in(expected: dict) -> list[str]:
    """The supported trec_eval measure names present in an expected output."""
    names = []
    for name, _ in expected:
        if supported(name) and name not in names:
            names.append(name)
    return names


def evaluate_like_trec(qrels, run, expected: dict, **kwargs):
    names = measures_in(expected)
    return irmeta.evaluate(qrels, run, names, **kwargs)
