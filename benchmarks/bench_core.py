#!/usr/bin/env python3
"""Core benchmark: ``irmeta eval`` against pytrec_eval, ir_measures and ranx.

Every tool runs as its own subprocess, timed from process start to printed means
(wall clock, best of ``--repeat`` runs) with its peak resident memory (``ru_maxrss``
of that child, from ``os.wait4``). Scenarios (see ``benchmarks/README.md``):

* ``msmarco``  one MS MARCO-sized run (6,980 topics x 1,000 documents, 1-4 relevant
  per topic) with AP, nDCG@10, P@10, RR@10, R@1000, end-to-end from the files;
* ``dl21``     the 63 TREC DL 2021 passage runs (gzip) with AP@100, P@100, nDCG@10;
* ``big``      a 100-run x 5,000-topic x 100-document campaign (irmeta and pytrec_eval
  only) with AP, nDCG@10, P@10, RR@10, R@100;
* ``startup``  ``python -c "import irmeta"`` and ``irmeta --help``.

Each data scenario also times the floor: a bare columnar read of the same files with
``pyarrow.csv`` (no evaluation). After timing, the means of every peer are compared
with irmeta's (max absolute difference per measure over runs).

The worker side (``bench_core.py worker TOOL ...``) imports only the library it
measures, inside the worker, so the import cost is part of the time, as a user meets it.

Usage::

    python benchmarks/bench_core.py --data /work/bench-data \\
        --dl21 ../shared/data/trec-dl-2021-passage --irmeta /work/venv/bin/irmeta

Nothing here is imported by irmeta or its tests; numbers go to RESULTS.md by hand.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: scenario -> measures in irmeta / ir_measures syntax
MEASURES = {
    "msmarco": ["AP", "nDCG@10", "P@10", "RR@10", "R@1000"],
    "dl21": ["AP@100", "P@100", "nDCG@10"],
    "big": ["AP", "nDCG@10", "P@10", "RR@10", "R@100"],
}

#: tools timed per scenario (the floor 'arrow' is added to every scenario)
TOOLS = {
    "msmarco": ["irmeta", "pytrec_eval", "pytrec_eval_arrow", "ir_measures", "ranx", "ranx_cached"],
    "dl21": ["irmeta", "pytrec_eval", "pytrec_eval_arrow", "ir_measures", "ranx", "ranx_cached"],
    "big": ["irmeta", "pytrec_eval", "pytrec_eval_arrow"],
}


# --------------------------------------------------------------------------- #
# measure name translation for the peers
# --------------------------------------------------------------------------- #
def _split(measure: str) -> tuple[str, int | None]:
    name, _, cut = measure.partition("@")
    return name, (int(cut) if cut else None)


def pytrec_name(measure: str) -> tuple[str, str, int | None]:
    """irmeta measure -> (pytrec_eval request, result key, RR cutoff to apply).

    RR@k has no trec_eval measure; it equals ``recip_rank`` when the first relevant
    document is within rank k (1/rank >= 1/k) and 0 otherwise, so it is derived from
    ``recip_rank`` per topic at no cost.
    """
    name, cut = _split(measure)
    if name == "AP":
        return ("map", "map", None) if cut is None else (f"map_cut.{cut}", f"map_cut_{cut}", None)
    if name == "nDCG":
        return (("ndcg", "ndcg", None) if cut is None
                else (f"ndcg_cut.{cut}", f"ndcg_cut_{cut}", None))
    if name == "P":
        return f"P.{cut}", f"P_{cut}", None
    if name == "R":
        return f"recall.{cut}", f"recall_{cut}", None
    if name == "RR":
        return "recip_rank", "recip_rank", cut
    raise ValueError(f"pytrec_name: no mapping for measure {measure!r}")


def ranx_name(measure: str) -> str:
    """irmeta measure -> ranx metric name."""
    name, cut = _split(measure)
    base = {"AP": "map", "nDCG": "ndcg", "P": "precision", "R": "recall", "RR": "mrr"}[name]
    return base if cut is None else f"{base}@{cut}"


def run_key(path: str) -> str:
    """A run's key for the agreement table: its file name without .gz / .txt."""
    name = Path(path).name
    for ext in (".gz", ".txt", ".trec", ".run"):
        if name.endswith(ext):
            name = name[: -len(ext)]
    return name


# --------------------------------------------------------------------------- #
# workers: one tool, in its own process; print PHASES and MEANS lines
# --------------------------------------------------------------------------- #
def _emit(phases: dict, means: dict) -> None:
    print("PHASES " + json.dumps(phases))
    print("MEANS " + json.dumps(means))
    sys.stdout.flush()


def worker_pytrec_eval(qrels: str, runs: list[str], measures: list[str], t0: float) -> None:
    import gzip
    import statistics as st

    import pytrec_eval
    phases = {"import": time.perf_counter() - t0}

    def lines(path):
        return gzip.open(path, "rt") if path.endswith(".gz") else open(path)

    with lines(qrels) as f:
        qrel = pytrec_eval.parse_qrel(f)
    names = [pytrec_name(m) for m in measures]
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, {req for req, _, _ in names})
    phases["qrels"] = time.perf_counter() - t0 - phases["import"]
    means, t_read, t_eval = {}, 0.0, 0.0
    for path in runs:
        a = time.perf_counter()
        with lines(path) as f:
            run = pytrec_eval.parse_run(f)
        b = time.perf_counter()
        per_topic = evaluator.evaluate(run)
        out = {}
        for m, (_, key, rr_cut) in zip(measures, names):
            vals = [v[key] for v in per_topic.values()]
            if rr_cut is not None:
                vals = [x if x >= 1.0 / rr_cut - 1e-12 else 0.0 for x in vals]
            out[m] = st.fmean(vals) if vals else float("nan")
        means[run_key(path)] = out
        t_read += b - a
        t_eval += time.perf_counter() - b
    phases.update(read_runs=t_read, evaluate=t_eval)
    _emit(phases, means)


def worker_pytrec_eval_arrow(qrels: str, runs: list[str], measures: list[str], t0: float) -> None:
    """pytrec_eval fed by a fast reader: pyarrow.csv columns -> the nested dicts it needs.

    The strongest pytrec_eval set-up we know of a user writing: no Python loop over
    lines, one ``dict(zip(docids, scores))`` per topic block.
    """
    import statistics as st

    import numpy as np
    import pytrec_eval
    phases = {"import": time.perf_counter() - t0}

    def nested(path, value_col, value_type):
        table = _arrow_read(path, value_col, value_type)
        topics = table.column("topic").to_numpy(zero_copy_only=False)
        docs = table.column("docid").to_pylist()
        values = table.column(value_col).to_pylist()
        cuts = np.concatenate(([0], np.flatnonzero(topics[1:] != topics[:-1]) + 1, [len(topics)]))
        out = {}
        for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
            out.setdefault(topics[a], {}).update(zip(docs[a:b], values[a:b]))
        return out

    names = [pytrec_name(m) for m in measures]
    evaluator = pytrec_eval.RelevanceEvaluator(nested(qrels, "grade", "int"),
                                               {req for req, _, _ in names})
    phases["qrels"] = time.perf_counter() - t0 - phases["import"]
    means, t_read, t_eval = {}, 0.0, 0.0
    for path in runs:
        a = time.perf_counter()
        run = nested(path, "score", "float")
        b = time.perf_counter()
        per_topic = evaluator.evaluate(run)
        out = {}
        for m, (_, key, rr_cut) in zip(measures, names):
            vals = [v[key] for v in per_topic.values()]
            if rr_cut is not None:
                vals = [x if x >= 1.0 / rr_cut - 1e-12 else 0.0 for x in vals]
            out[m] = st.fmean(vals) if vals else float("nan")
        means[run_key(path)] = out
        t_read += b - a
        t_eval += time.perf_counter() - b
    phases.update(read_runs=t_read, evaluate=t_eval)
    _emit(phases, means)


def _arrow_read(path: str, value_col: str = "score", value_type: str = "float"):
    """Read a qrels (value_col 'grade') or run file with pyarrow.csv, ids as strings."""
    import gzip

    import pyarrow as pa
    import pyarrow.csv as pcsv
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        delim = "\t" if "\t" in f.readline() else " "  # pyarrow takes one delimiter char
    if value_col == "grade":
        cols = ["topic", "iter", "docid", "grade"]
        types = [pa.string(), pa.string(), pa.string(), pa.int32()]
    else:
        cols = ["topic", "q0", "docid", "rank", "score", "tag"]
        types = [pa.string(), pa.string(), pa.string(), pa.int64(), pa.float64(), pa.string()]
    return pcsv.read_csv(path, read_options=pcsv.ReadOptions(column_names=cols),
                         parse_options=pcsv.ParseOptions(delimiter=delim),
                         convert_options=pcsv.ConvertOptions(column_types=dict(zip(cols, types))))


def worker_ir_measures(qrels: str, runs: list[str], measures: list[str], t0: float) -> None:
    import ir_measures
    phases = {"import": time.perf_counter() - t0}
    parsed = [ir_measures.parse_measure(m) for m in measures]
    evaluator = ir_measures.evaluator(parsed, ir_measures.read_trec_qrels(qrels))
    phases["qrels"] = time.perf_counter() - t0 - phases["import"]
    means = {}
    for path in runs:
        agg = evaluator.calc_aggregate(ir_measures.read_trec_run(path))
        means[run_key(path)] = {m: float(agg[p]) for m, p in zip(measures, parsed)}
    phases["evaluate"] = time.perf_counter() - t0 - phases["import"] - phases["qrels"]
    _emit(phases, means)


def worker_ranx(qrels: str, runs: list[str], measures: list[str], t0: float) -> None:
    from ranx import Qrels, Run, evaluate
    phases = {"import": time.perf_counter() - t0}
    metrics = [ranx_name(m) for m in measures]
    qr = Qrels.from_file(qrels, kind="trec")
    phases["qrels"] = time.perf_counter() - t0 - phases["import"]
    means, loaded, t_read, t_eval = {}, [], 0.0, 0.0
    for path in runs:
        a = time.perf_counter()
        run = Run.from_file(path, kind="gz" if path.endswith(".gz") else "trec")
        b = time.perf_counter()
        res = evaluate(qr, run, metrics, make_comparable=True)
        res = res if isinstance(res, dict) else {metrics[0]: res}
        means[run_key(path)] = {m: float(res[x]) for m, x in zip(measures, metrics)}
        loaded.append(run)
        t_read += b - a
        t_eval += time.perf_counter() - b
    phases.update(read_runs=t_read, evaluate_first=t_eval)
    _emit(phases, means)
    # warm: evaluate the already loaded runs again (numba compiled, data in memory)
    a = time.perf_counter()
    for run in loaded:
        evaluate(qr, run, metrics, make_comparable=True)
    phases["evaluate_warm"] = time.perf_counter() - a
    print("WARM " + json.dumps(phases))


def worker_arrow(qrels: str, runs: list[str], measures: list[str], t0: float) -> None:
    """The floor: a bare columnar read of the qrels and run files, nothing else."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    phases = {"import": time.perf_counter() - t0}
    import gzip

    def delimiter(path):  # TREC files are space- or tab-separated; pyarrow takes one char
        with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
            return "\t" if "\t" in f.readline() else " "

    rows = 0
    for path, cols, types in [(qrels, ["topic", "iter", "docid", "grade"],
                               [pa.string(), pa.string(), pa.string(), pa.int32()])] + \
            [(p, ["topic", "q0", "docid", "rank", "score", "tag"],
              [pa.string(), pa.string(), pa.string(), pa.int64(), pa.float64(), pa.string()])
             for p in runs]:
        table = pcsv.read_csv(path, read_options=pcsv.ReadOptions(column_names=cols),
                              parse_options=pcsv.ParseOptions(delimiter=delimiter(path)),
                              convert_options=pcsv.ConvertOptions(
                                  column_types=dict(zip(cols, types))))
        rows += table.num_rows
    phases["read"] = time.perf_counter() - t0 - phases["import"]
    phases["rows"] = rows
    _emit(phases, {})


WORKERS = {"pytrec_eval": worker_pytrec_eval, "pytrec_eval_arrow": worker_pytrec_eval_arrow,
           "ir_measures": worker_ir_measures,
           "ranx": worker_ranx, "arrow": worker_arrow}


# --------------------------------------------------------------------------- #
# harness: spawn, time, collect
# --------------------------------------------------------------------------- #
def timed(cmd: list[str], env: dict | None = None, timeout: float = 1800) -> dict:
    """Run ``cmd``; return wall seconds, peak RSS (MiB), exit status and stdout/stderr."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except KeyboardInterrupt:
            proc.kill()
            raise
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                "rss_mib": usage.ru_maxrss / 1024.0, "status": proc.returncode,
                "stdout": out.read(), "stderr": err.read()}


def parse_worker(stdout: str) -> tuple[dict, dict, dict]:
    phases, means, warm = {}, {}, {}
    for line in stdout.splitlines():
        if line.startswith("PHASES "):
            phases = json.loads(line[7:])
        elif line.startswith("MEANS "):
            means = json.loads(line[6:])
        elif line.startswith("WARM "):
            warm = json.loads(line[5:])
    return phases, means, warm


def tag_of(path: str) -> str:
    """The run tag on the first line of a run file (plain or gzip)."""
    import gzip
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        return f.readline().split()[5]


def parse_irmeta_tsv(stdout: str, runs: list[str], measures: list[str]) -> dict:
    """irmeta's ``--format tsv`` means -> {run key: {measure: mean}} (measures by order)."""
    by_name: dict[str, list[float]] = {}
    for line in stdout.splitlines()[1:]:
        parts = line.split("\t")
        if len(parts) == 4 and parts[2] == "all":
            by_name.setdefault(parts[0], []).append(float(parts[3]))
    keys = {run_key(p): p for p in runs}
    tag_to_key = {tag_of(p): k for k, p in keys.items()}
    means = {}
    for name, values in by_name.items():
        key = name if name in keys else tag_to_key.get(name, name)
        means[key] = dict(zip(measures, values))
    return means


def tool_command(tool: str, scenario: str, qrels: str, runs: list[str],
                 args) -> tuple[list, dict | None]:
    measures = MEASURES[scenario]
    if tool == "irmeta":
        cmd = [args.irmeta, "eval", qrels, *runs, "--format", "tsv"]
        for m in measures:
            cmd += ["-m", m]
        return cmd, None
    worker = "ranx" if tool.startswith("ranx") else tool
    cmd = [args.python, str(Path(__file__).resolve()), "worker", worker, "--qrels", qrels,
           "--runs", *runs, "--measures", *measures]
    env = None
    if tool == "ranx":
        # as a user meets it: no numba on-disk cache yet, so the first call compiles
        env = dict(os.environ, NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix="ranx-cold-"))
    elif tool == "ranx_cached":
        # a returning user: numba's on-disk cache filled by an earlier process
        env = dict(os.environ, NUMBA_CACHE_DIR=args.numba_cache)
    return cmd, env


def scenario_files(scenario: str, args) -> tuple[str, list[str]]:
    if scenario == "msmarco":
        base = Path(args.data) / "msmarco-like"
        return str(base / "qrels.txt"), sorted(str(p) for p in (base / "runs").iterdir())
    if scenario == "big":
        base = Path(args.data) / "big-campaign"
        return str(base / "qrels.txt"), sorted(str(p) for p in (base / "runs").iterdir())
    base = Path(args.dl21)
    return (str(base / "qrels" / "qrels.dl21-passage.txt"),
            sorted(str(p) for p in (base / "runs").iterdir()))


def bench_scenario(scenario: str, args) -> dict:
    qrels, runs = scenario_files(scenario, args)
    tools = [t for t in TOOLS[scenario] if t in args.tools] + ["arrow"]
    print(f"\n== {scenario}: {len(runs)} run file(s), measures {' '.join(MEASURES[scenario])}",
          flush=True)
    if "ranx_cached" in tools:  # fill the numba cache once, untimed
        cmd, env = tool_command("ranx_cached", scenario, qrels, runs[:1], args)
        timed(cmd, env)
    result = {"qrels": qrels, "runs": len(runs), "measures": MEASURES[scenario], "tools": {}}
    for tool in tools:
        trials = []
        for _ in range(args.repeat):
            cmd, env = tool_command(tool, scenario, qrels, runs, args)
            load = os.getloadavg()[0]
            r = timed(cmd, env)
            r["load1"] = load
            if env and tool == "ranx":
                shutil.rmtree(env["NUMBA_CACHE_DIR"], ignore_errors=True)
            if r["status"] != 0:
                print(f"  {tool}: FAILED (exit {r['status']})\n{r['stderr'][-3000:]}", flush=True)
                break
            trials.append(r)
            print(f"  {tool:12s} {r['wall']:8.2f} s wall {r['cpu']:8.2f} s cpu "
                  f"{r['rss_mib']:8.0f} MiB  (load {load:.1f})",
                  flush=True)
        if not trials:
            result["tools"][tool] = {"failed": True}
            continue
        best = min(trials, key=lambda r: r["wall"])
        if tool == "irmeta":
            phases, warm = {}, {}
            means = parse_irmeta_tsv(best["stdout"], runs, MEASURES[scenario])
        else:
            phases, means, warm = parse_worker(best["stdout"])
        result["tools"][tool] = {
            "best": best["wall"], "times": [r["wall"] for r in trials],
            "cpu_best_run": best["cpu"], "cpu_min": min(r["cpu"] for r in trials),
            "median": statistics.median(r["wall"] for r in trials),
            "rss_mib": max(r["rss_mib"] for r in trials),
            "load1_before": [round(r["load1"], 2) for r in trials], "phases": phases, "warm": warm,
            "means": means,
            "command": " ".join(tool_command(tool, scenario, qrels, runs[:2], args)[0])
            + (" ..." if len(runs) > 2 else ""),
        }
    result["agreement"] = agreement(result)
    if "irmeta" in result["tools"] and scenario != "big":
        # trec_eval <= 9.x (and so pytrec_eval) reads scores as float32: compare with that too
        cmd, _ = tool_command("irmeta", scenario, qrels, runs, args)
        r = timed(cmd + ["--float32"])
        if r["status"] == 0:
            f32 = dict(result, tools=dict(result["tools"], irmeta={
                "means": parse_irmeta_tsv(r["stdout"], runs, MEASURES[scenario])}))
            result["agreement_float32"] = agreement(f32)
    return result


def agreement(result: dict) -> dict:
    """Max |mean(peer) - mean(irmeta)| per measure over the runs both evaluated."""
    ref = result["tools"].get("irmeta", {}).get("means")
    out = {}
    if not ref:
        return out
    for tool, info in result["tools"].items():
        if tool in ("irmeta", "arrow", "ranx_cached") or not info.get("means"):
            continue
        row = {}
        for m in result["measures"]:
            diffs = [abs(info["means"][k][m] - ref[k][m]) for k in ref if k in info["means"]]
            n_diff = sum(d > 5e-5 for d in diffs)
            row[m] = {"max_abs": max(diffs) if diffs else float("nan"),
                      "runs": len(diffs), "runs_differing_1e-4": n_diff}
        missing = sorted(set(ref) ^ set(info["means"]))
        out[tool] = {"measures": row, "unmatched_runs": missing}
    return out


def bench_startup(args) -> dict:
    py = str(Path(args.irmeta).with_name("python"))
    cmds = {"python -c pass": [py, "-c", "pass"],
            'python -c "import irmeta"': [py, "-c", "import irmeta"],
            "irmeta --help": [args.irmeta, "--help"],
            "irmeta eval --help": [args.irmeta, "eval", "--help"]}
    out = {}
    print("\n== startup", flush=True)
    for name, cmd in cmds.items():
        trials = [timed(cmd) for _ in range(max(5, args.repeat))]
        if any(t["status"] for t in trials):
            print(f"  {name}: FAILED\n{trials[0]['stderr'][-2000:]}")
            continue
        best = min(t["wall"] for t in trials)
        out[name] = {"best": best, "rss_mib": max(t["rss_mib"] for t in trials),
                     "cpu_min": min(t["cpu"] for t in trials)}
        print(f"  {name:28s} {best:6.3f} s  {out[name]['rss_mib']:6.0f} MiB", flush=True)
    # does importing irmeta pull in a JIT (numba) or other heavy modules?
    probe = timed([py, "-X", "importtime", "-c", "import irmeta, sys; "
                   "print(sorted(m for m in ('numba','llvmlite','scipy','matplotlib',"
                   "'pandas','pyarrow') "
                   "if m in sys.modules))"])
    out["modules_loaded_by_import_irmeta"] = probe["stdout"].strip()
    return out


def versions(args) -> dict:
    code = ("import importlib.metadata as md, json, sys\n"
            "names=['irmeta','pytrec_eval_terrier','pytrec_eval','ir_measures','ranx','numba',"
            "'numpy','pandas','pyarrow']\n"
            "out={'python': sys.version.split()[0]}\n"
            "for n in names:\n"
            "    try: out[n]=md.version(n)\n"
            "    except Exception: pass\n"
            "print(json.dumps(out))")
    peers = json.loads(subprocess.run([args.python, "-c", code], capture_output=True,
                                      text=True).stdout)
    py = str(Path(args.irmeta).with_name("python"))
    own = json.loads(subprocess.run([py, "-c", code], capture_output=True, text=True).stdout)
    git = subprocess.run(["git", "-C", str(HERE.parent), "log", "-1", "--format=%h %cI"],
                         capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(HERE.parent), "status", "--porcelain", "src"],
                           capture_output=True, text=True).stdout.strip()
    return {"peers_env": peers, "irmeta_env": own,
            "irmeta_commit": git + (" (+ uncommitted changes in src/)" if dirty else "")}


def machine() -> dict:
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = next(line for line in open("/proc/meminfo") if line.startswith("MemTotal"))
    except OSError:
        mem = ""
    return {"cpu": cpu, "cores": os.cpu_count(), "mem": mem.split(":", 1)[-1].strip(),
            "platform": platform.platform(), "date": datetime.datetime.now(datetime.timezone.utc)
            .strftime("%Y-%m-%d %H:%M UTC")}


# --------------------------------------------------------------------------- #
# report
# --------------------------------------------------------------------------- #
def markdown(res: dict) -> str:
    lines = []
    for scenario in ("msmarco", "dl21", "big"):
        if scenario not in res:
            continue
        sc = res[scenario]
        tools = sc["tools"]
        ref = tools.get("irmeta", {}).get("best")
        ref_cpu = tools.get("irmeta", {}).get("cpu_min")
        lines += [f"### {scenario}: {sc['runs']} run file(s); {', '.join(sc['measures'])}", "",
                  "| tool | wall, best of 3 (s) | median (s) | tool / irmeta "
                  "| CPU user+sys, min (s) "
                  "| CPU ratio | peak RSS (MiB) | load before | phases (s, best run) |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
        for tool, info in tools.items():
            if info.get("failed"):
                lines.append(f"| {tool} | failed | | | | | | | |")
                continue
            ratio = f"{info['best'] / ref:.2f}" if ref else "-"
            ph = dict(info["phases"])
            if info.get("warm"):
                ph["evaluate_warm"] = info["warm"].get("evaluate_warm")
            phs = ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}"
                            for k, v in ph.items())
            cratio = f"{info['cpu_min'] / ref_cpu:.2f}" if ref_cpu else "-"
            loads = " ".join(f"{x:.1f}" for x in info["load1_before"])
            lines.append(f"| {tool} | {info['best']:.2f} | {info['median']:.2f} | {ratio} | "
                         f"{info['cpu_min']:.2f} | {cratio} | {info['rss_mib']:.0f} | "
                         f"{loads} | {phs} |")
        lines.append("")
        for key, title in (("agreement", "irmeta"), ("agreement_float32", "irmeta --float32")):
            if not sc.get(key):
                continue
            ms = sc["measures"]
            lines += [f"Agreement with {title} (max |difference of means| over runs; "
                      "runs differing by > 5e-5 / runs compared):", "",
                      "| tool | " + " | ".join(ms) + " |", "| --- |" + " ---: |" * len(ms)]
            for tool, ag in sc[key].items():
                cells = [f"{ag['measures'][m]['max_abs']:.2e} "
                         f"({ag['measures'][m]['runs_differing_1e-4']}/"
                         f"{ag['measures'][m]['runs']})" for m in ms]
                lines.append(f"| {tool} | " + " | ".join(cells) + " |")
                if ag["unmatched_runs"]:
                    lines.append(f"| ({tool} unmatched runs: "
                                 f"{', '.join(ag['unmatched_runs'][:5])}) |")
            lines.append("")
    if "startup" in res:
        lines += ["### start-up", "",
                  "| command | wall, best of 5 (s) | CPU, min (s) | peak RSS (MiB) |",
                  "| --- | ---: | ---: | ---: |"]
        for name, info in res["startup"].items():
            if isinstance(info, dict):
                lines.append(f"| `{name}` | {info['best']:.3f} | {info['cpu_min']:.3f} | "
                             f"{info['rss_mib']:.0f} |")
        lines += ["", "Heavy modules loaded by `import irmeta`: "
                  f"{res['startup'].get('modules_loaded_by_import_irmeta')}", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "worker":
        t0 = time.perf_counter()
        p = argparse.ArgumentParser(prog="bench_core.py worker")
        p.add_argument("tool", choices=sorted(WORKERS))
        p.add_argument("--qrels", required=True)
        p.add_argument("--runs", nargs="+", required=True)
        p.add_argument("--measures", nargs="+", required=True)
        a = p.parse_args(argv[1:])
        WORKERS[a.tool](a.qrels, a.runs, a.measures, t0)
        return 0

    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default="/work/bench-data",
                   help="folder with msmarco-like/ and big-campaign/ from make_campaign.py")
    p.add_argument("--dl21", default=str(HERE.parent.parent / "shared/data/trec-dl-2021-passage"))
    p.add_argument("--irmeta",
                   default=shutil.which("irmeta") or str(Path(sys.executable).with_name("irmeta")),
                   help="the irmeta executable (its venv's python is used for the start-up probe)")
    p.add_argument("--python", default=sys.executable, help="python with the peers installed")
    p.add_argument("--scenarios", default="startup,msmarco,dl21,big")
    p.add_argument("--tools",
                   default="irmeta,pytrec_eval,pytrec_eval_arrow,ir_measures,ranx,ranx_cached")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", default=None, help="write all results as JSON here")
    p.add_argument("--markdown", default=None, help="write the tables as Markdown here")
    args = p.parse_args(argv)
    args.tools = args.tools.split(",")
    args.numba_cache = tempfile.mkdtemp(prefix="ranx-cache-")

    res = {"machine": machine(), "versions": versions(args), "irmeta": args.irmeta,
           "python": args.python, "repeat": args.repeat}
    print(json.dumps(res, indent=1), flush=True)
    try:
        for scenario in args.scenarios.split(","):
            if scenario == "startup":
                res["startup"] = bench_startup(args)
            else:
                res[scenario] = bench_scenario(scenario, args)
                print(markdown({scenario: res[scenario]}), flush=True)
    finally:
        shutil.rmtree(args.numba_cache, ignore_errors=True)
    md = markdown(res)
    print("\n" + md)
    if args.out:
        for sc in ("msmarco", "dl21", "big"):  # keep the JSON small: means of a few runs only
            for info in res.get(sc, {}).get("tools", {}).values():
                if isinstance(info.get("means"), dict) and len(info["means"]) > 3:
                    info["means"] = dict(list(info["means"].items())[:3])
        Path(args.out).write_text(json.dumps(res, indent=1))
    if args.markdown:
        Path(args.markdown).write_text(md + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
