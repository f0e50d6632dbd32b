"""Sharded == in memory, byte for byte: random campaigns x option sets x shard sizes x
{text files, Parquet campaign, Dask LocalCluster} (issue 22, "What to build" 1).

Each campaign is written as TREC files with what makes the options matter: grades -1..3
spread so that topics differ in their highest grade (graded measures read the
*campaign's* grade scale, which a shard must not recompute from its own topics), scores
that tie only as 32-bit floats (``--float32``), unjudged and negatively judged documents
(``-J``), long rankings (``-M``), subtopic judgments (``--subtopic-qrels``), a reference run
(``--reference-runs``) and groups (``--groups``). For every option set the command's
whole output — every measure of ``irmeta measures`` in full precision (``--format tsv``)
and ``-m all_trec`` in trec_eval's layout (``relstring`` included) — must be the same
bytes in memory, in shards of 1, 2 and 3 topics and from the converted Parquet campaign;
and every option set must change the output of the plain command (else the option would
not be shown to arrive). The LocalCluster part runs the same through the API (slow).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irmeta
from irmeta.cli.main import main
from irmeta.measures import registry
from tests.quick import sampled
from tests.unit.test_kernel_blocks import _every_measure

#: every measure of ``irmeta measures`` (default parameters), diversity apart
EVERY = _every_measure()
DIVERSITY = [m for m in EVERY if registry.get(m.split("@")[0].split("(")[0]).family
             == "diversity"]
PLAIN = [m for m in EVERY if m not in DIVERSITY]
CONTEXT = ["NRG(prior=best_per_group)@10", "TaSC(prior=best_per_group)@5",
           "NRG(prior=list)", "P_rare(alpha=0.5)@10", "RR(judged_only=true)",
           "AP(judged_only=true)", "nDCG(judged_only=true)@5"]

#: option sets (names of the files the campaign writes are filled in by ``_args``)
OPTION_SETS = {
    "J": ["-J"],
    "J-l2": ["-J", "-l", "2"],
    "N-c": ["-N", "5000", "-c"],
    "M-float32": ["-M", "4", "--float32"],
    "names": ["--names", "A,B,C"],
    "subtopics-J": ["--subtopic-qrels", "{sub}", "-J"],
    "reference-groups": ["--reference-runs", "{ref}", "--groups", "{groups}",
                         "--prior-runs", "run0,run2"],
    "l2-dedupe": ["-l", "2", "--dedupe"],
}
#: options all_trec reads nothing of (the CLI refuses them with it, docs/cli.md)
CONTEXT_OPTIONS = ("--groups", "--prior-runs", "--reference-runs", "--subtopic-qrels")
#: the option sets the quick loop keeps (the others run in the full suite)
QUICK = ("J-l2", "M-float32", "subtopics-J")


def write_campaign(folder: Path, seed: int, n_runs: int = 3,
                   n_topics: int = 7) -> dict[str, object]:
    """Paths of a random campaign (see module doc): qrels, runs, subtopics, a reference
    run, groups."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    qrels, subs, runs = [], [], {f"run{r}": [] for r in range(n_runs + 1)}
    for t in range(n_topics):
        topic = f"{t + 1}"
        docs = [f"d{t}_{j}" for j in rng.permutation(25)]
        top = int(rng.integers(1, 4))      # topics differ in their highest grade
        for d in docs[: int(rng.integers(2, 20))]:
            g = int(rng.choice([-1, 0, 0, 1, top]))
            qrels.append(f"{topic} 0 {d} {g}\n")
            for s in range(1, 3):
                if g > 0 and rng.random() < 0.6:
                    subs.append(f"{topic} {s} {d} 1\n")
        for name, lines in runs.items():
            if rng.random() < 0.15:
                continue                   # topic missing from the run
            n = int(rng.integers(1, 20))
            chosen = list(rng.choice(docs, size=n, replace=False))
            if rng.random() < 0.3:
                chosen.append(chosen[0])   # a repeated document (--dedupe)
            for d in chosen:
                # distinct as float64, tied as float32
                score = 1.0 + int(rng.integers(0, 4)) + int(rng.integers(0, 3)) * 1e-9
                lines.append(f"{topic} Q0 {d} 0 {score!r} {name}\n")
    for name, lines in runs.items():
        rng.shuffle(lines)
        (folder / f"{name}.txt").write_text("".join(lines))
    (folder / "qrels.txt").write_text("".join(qrels))
    (folder / "subtopics.txt").write_text("".join(subs))
    (folder / "groups.txt").write_text("".join(f"run{r} g{r % 2}\n" for r in range(n_runs)))
    return {"qrels": str(folder / "qrels.txt"),
            "runs": [str(folder / f"run{r}.txt") for r in range(n_runs)],
            "ref": str(folder / f"run{n_runs}.txt"), "sub": str(folder / "subtopics.txt"),
            "groups": str(folder / "groups.txt")}


def _args(option_set: list[str], paths: dict) -> list[str]:
    return [a.format(**paths) for a in option_set]


def _measures(options: list[str]) -> list[str]:
    ms = PLAIN + (DIVERSITY if "--subtopic-qrels" in options else [])
    ms = ms + [m for m in CONTEXT if "prior=" not in m or "--groups" in options]
    return [a for m in ms for a in ("-m", m)]


def _run(capsys, args: list[str]) -> str:
    code = main(args)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def _outputs(capsys, inputs: list[str], options: list[str], extra: list[str]) -> list[str]:
    """Full-precision values of every measure, then trec_eval's all_trec layout."""
    # all_trec reads no context: the CLI refuses --groups, --prior-runs, --reference-runs
    # and --subtopic-qrels with it
    plain = [o for i, o in enumerate(options)
             if o not in CONTEXT_OPTIONS and (i == 0 or options[i - 1] not in CONTEXT_OPTIONS)]
    return [_run(capsys, ["eval", "-q", "--format", "tsv", *_measures(options), *inputs,
                          *options, *extra]),
            _run(capsys, ["eval", "-q", "-m", "all_trec", *inputs, *plain, *extra])]


def _check(tmp_path, capsys, seed: int, name: str) -> None:
    paths = write_campaign(tmp_path / "c", seed)
    options = _args(OPTION_SETS[name], paths)
    if "--dedupe" not in options:   # the repeated documents are an error without --dedupe
        options = options + ["--dedupe"]
    inputs = [paths["qrels"], *paths["runs"]]
    memory = _outputs(capsys, inputs, options, [])
    plain = _outputs(capsys, inputs, ["--dedupe"], [])
    assert memory[0] != plain[0], f"{name}: the options change nothing"
    for size in ("1", "2", "3"):
        assert _outputs(capsys, inputs, options, ["--shard-topics", size]) == memory, \
            f"{name}, shards of {size} topic(s)"
    folder = tmp_path / f"parquet-{seed}"
    _run(capsys, ["convert", *inputs, "-o", str(folder), "--block-topics", "2"])
    assert _outputs(capsys, [str(folder)], options, []) == memory, f"{name}, Parquet"


@pytest.mark.filterwarnings("ignore:.*undefined:UserWarning")
@pytest.mark.parametrize("name", sampled(
    [n for n in OPTION_SETS if n in QUICK] + [n for n in OPTION_SETS if n not in QUICK],
    keep=len(QUICK)))
def test_sharded_output_is_the_in_memory_output(tmp_path, capsys, name):
    _check(tmp_path, capsys, 0, name)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*undefined:UserWarning")
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_sharded_output_on_more_campaigns(tmp_path, capsys, seed, name):
    _check(tmp_path, capsys, seed, name)


#: the option sets of OPTION_SETS as API arguments (``{sub}`` etc.: the campaign's paths)
API_SETS = {
    "J": {"judged_only": True},
    "J-l2": {"judged_only": True, "rel_level": 2},
    "N-c": {"collection_size": 5000, "complete": True},
    "M-float32": {"max_docs": 4, "float32": True},
    "names": {"names": ["A", "B", "C"]},
    "subtopics-J": {"subtopic_qrels": "{sub}", "judged_only": True},
    "reference-groups": {"reference": "{ref}", "groups": "{groups}",
                         "prior_runs": ["run0", "run2"]},
    "l2-dedupe": {"rel_level": 2},
}


def _api_options(name: str, paths: dict) -> dict:
    from irmeta.io.load import read_groups
    options = dict(API_SETS[name], dedupe=True)
    if "subtopic_qrels" in options:
        options["subtopic_qrels"] = paths["sub"]
    if "reference" in options:
        options["reference"] = irmeta.load_campaign(paths["qrels"], [paths["ref"]],
                                                    dedupe=True, warn_dropped=False)
        options["groups"] = read_groups(paths["groups"])
    return options


def _api_measures(options: dict) -> list[str]:
    return [m for m in _measures(["--subtopic-qrels"] if "subtopic_qrels" in options else [])
            + _measures(["--groups"] if "groups" in options else []) if m != "-m"] + ["relstring"]


def _bytes(results) -> tuple:
    texts = [results.text(j) for j, m in enumerate(results.measures)
             if m.definition.text is not None]
    return results.runs, results.values.tobytes(), results.evaluated.tobytes(), texts


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*undefined:UserWarning")
@pytest.mark.filterwarnings("ignore:.*not in the qrels:UserWarning")
def test_a_local_cluster_gives_the_in_memory_values(tmp_path):
    """The option sets above through the API on a LocalCluster (2 processes), every
    measure and relstring, byte for byte."""
    pytest.importorskip("distributed")
    from irmeta.shards.dask import connect
    assert set(API_SETS) == set(OPTION_SETS)
    paths = write_campaign(tmp_path / "c", 6)
    inputs = (paths["qrels"], paths["runs"])
    with connect(None, 2) as client:
        for name in API_SETS:
            options = _api_options(name, paths)
            measures = list(dict.fromkeys(_api_measures(options)))
            memory = _bytes(irmeta.evaluate(*inputs, measures, **options))
            assert _bytes(irmeta.evaluate(*inputs, measures, client=client,
                                          **options)) == memory, name
