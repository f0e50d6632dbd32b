"""Issue 32, the trust tail: each case an internal error or a silent acceptance found by
the adversarial round, now a located message (exit 2) or the documented output."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from irmeta.cli.main import main
from irmeta.demo import demo_groups, demo_paths

DEMO = demo_paths()
QRELS = str(DEMO.qrels)
GROUPS = str(DEMO.groups)
RUNS = [str(p) for p in DEMO.runs]


def _exit2(capsys, argv, *phrases):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for phrase in phrases:
        assert phrase in err, err
    return err


# ----------------------------------------------- item 3: reusability --write-qrels folder
def _reuse(target):
    return ["meta", "reusability", QRELS, *RUNS, "-m", "AP", "--groups", GROUPS,
            "--rare", "none", "--write-qrels", str(target)]


def test_write_qrels_under_a_file(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _exit2(capsys, _reuse(blocker / "sub"), str(blocker), "is a file, not a folder")


def test_write_qrels_onto_a_file(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _exit2(capsys, _reuse(blocker), str(blocker), "is a file")


@pytest.mark.skipif(os.geteuid() == 0 or not Path("/proc").is_dir(),
                    reason="root may create folders anywhere; /proc is Linux")
def test_write_qrels_read_only_parent(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        _exit2(capsys, _reuse(ro / "out"), "cannot write", str(ro / "out"))
    finally:
        ro.chmod(0o700)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="Linux /proc")
def test_write_qrels_in_proc(capsys):
    _exit2(capsys, _reuse("/proc/x"), "cannot write", "/proc/x")


def test_write_qrels_api_is_located(tmp_path):
    from irmeta.errors import OutputError
    from irmeta.io.load import load_campaign
    from irmeta.stats.reusability import reusability
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = reusability(load_campaign(QRELS, RUNS, warn_dropped=False), ["AP"],
                      demo_groups(), rare=None)
    with pytest.raises(OutputError, match="is a file, not a folder"):
        res.write_qrels(blocker / "sub")


# ----------------------------------------------- item 4: an effect ratio dividing by 0
@pytest.mark.filterwarnings("default::irmeta.IrmetaWarning")
def test_effect_ratio_by_zero_is_null_in_json(tmp_path, capsys):
    # the original run is its own baseline: mean(a - b) = 0, the ratio is undefined
    a, b = RUNS[0], RUNS[1]
    argv = ["meta", "reproducibility", QRELS, a, b, "-m", "AP", "--baseline-orig", a,
            "--baseline-repro", RUNS[2], "--part", "effects", "--format", "json"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    # the library's warning, as the CLI shows irmeta's own warnings: one note line
    assert "irmeta: note: reproducibility: effect_ratio of AP undefined" in captured.err
    rows = json.loads(captured.out)
    assert rows[0]["effect_ratio"] is None
    assert isinstance(rows[0]["delta_ri"], float)


def test_effect_ratio_by_zero_api_is_nan():
    import math

    from irmeta.stats.reproducibility import reproducibility
    with pytest.warns(UserWarning, match="undefined"):
        res = reproducibility(QRELS, RUNS[0], RUNS[1], ["AP"],
                                          baseline_orig=RUNS[0], baseline_repro=RUNS[2])
    assert math.isnan(res.effects["effect_ratio"].iloc[0])


def test_json_records_write_infinity_as_null():
    import pandas as pd

    from irmeta.cli.common import json_records
    out = json.loads(json_records(pd.DataFrame({"x": [float("inf"), -float("inf"), 1.5]})))
    assert [r["x"] for r in out] == [None, None, 1.5]


# ----------------------------------------------- item 5: file names from long measures
LONG_MEASURE = "nDCG(gains={" + ",".join(f"{i}:{i}" for i in range(60)) + "})@10"


def test_bounded_file_name_is_short_stable_and_distinct():
    from irmeta.io.output import FILE_STEM_LIMIT, bounded_file_name
    a = bounded_file_name("matrix_" + "x" * 200)
    b = bounded_file_name("matrix_" + "x" * 199 + "y")
    assert len(a) == len(b) == FILE_STEM_LIMIT
    assert a != b and a.startswith("matrix_xxx") and "~" in a
    assert a == bounded_file_name("matrix_" + "x" * 200)
    assert bounded_file_name("matrix_AP") == "matrix_AP"


@pytest.mark.slow
def test_report_with_a_long_primary_measure(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(["report", "--demo", "--primary", LONG_MEASURE, "-o", str(out),
                 "--no-progress"]) == 0
    names = [p.name for p in (tmp_path / "report_files").iterdir()]
    assert max(len(n) for n in names) <= 80 + len(".parquet")
    assert any(n.startswith("matrix_nDCG_gains=_0_0_1_1") and "~" in n for n in names)


# ----------------------------------------------- item 6: pyterrier.Experiment arguments
def _experiment_inputs():
    import pandas as pd
    topics = pd.DataFrame({"qid": ["1", "2"], "query": ["a", "b"]})
    qrels = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["d1", "d2", "d3"],
                          "label": [1, 0, 2]})
    a = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["d1", "d2", "d3"],
                      "score": [2.0, 1.0, 1.0]})
    b = pd.DataFrame({"qid": ["1", "2"], "docno": ["d2", "d3"], "score": [1.0, 1.0]})
    return [a, b], topics, qrels


@pytest.mark.parametrize("kwargs, phrase", [
    ({"correction": "bogus", "baseline": 0}, "correction must be None or a method"),
    ({"correction": 3, "baseline": 0}, "correction must be None or a method"),
    ({"correction": "holm", "correction_alpha": 2, "baseline": 0}, "correction_alpha"),
    ({"correction_alpha": 0}, "correction_alpha"),
    ({"round": -1}, "round must be"),
    ({"round": "x"}, "round must be"),
    ({"round": 2.5}, "round must be"),
    ({"round": {"map": -2}}, "round['map']"),
    ({"rel_level": "1"}, "rel_level"),
    ({"test": "bogus"}, "test must be"),
])
def test_experiment_arguments_are_checked(kwargs, phrase):
    from irmeta.errors import ParameterError
    from irmeta.pyterrier import Experiment
    systems, topics, qrels = _experiment_inputs()
    with pytest.raises(ParameterError, match="irmeta.pyterrier.Experiment") as err:
        Experiment(systems, topics, qrels, ["map"], **kwargs)
    assert phrase in str(err.value)


def test_experiment_accepts_statsmodels_spellings():
    from irmeta.pyterrier import Experiment
    systems, topics, qrels = _experiment_inputs()
    for spelling in ("holm", "HOLM", "fdr_bh", "b"):
        table = Experiment(systems, topics, qrels, ["map"], baseline=0, correction=spelling,
                           round={"map": 3})
        assert "map reject" in table.columns


# ----------------------------------------------- item 10: context measures of two runs
@pytest.mark.parametrize("measure", ["NRG@10", "P_rare(alpha=1)@10", "AP_rare(alpha=0.5)@100"])
def test_reproducibility_refuses_context_measures(capsys, measure):
    err = _exit2(capsys, ["meta", "reproducibility", QRELS, RUNS[0], RUNS[1], "-m", "AP",
                          "-m", measure], "depend(s) on the other runs")
    assert measure.split("@")[0].split("(")[0] in err


def test_reproducibility_still_takes_plain_measures():
    from irmeta.stats.reproducibility import reproducibility
    res = reproducibility(QRELS, RUNS[0], RUNS[1], ["AP", "nDCG@10"])
    assert list(res.measures["measure"].unique()) == ["AP", "nDCG@10"]


# ----------------------------------------------- item 11: best_per_group without groups
@pytest.mark.parametrize("extra", [["--primary", "NRG(prior=best_per_group)@10"],
                                   ["--nrg-prior", "best_per_group"]])
def test_report_refuses_group_prior_without_groups(tmp_path, capsys, extra):
    _exit2(capsys, ["report", QRELS, *RUNS, "-o", str(tmp_path / "r.html"), "--no-progress",
                    *extra], "best_per_group", "--groups FILE")
    assert not (tmp_path / "r.html").exists()


# ----------------------------------------------- item 12: B lacks some of A's topics
def test_qrels_agreement_notes_topics_b_lacks(tmp_path):
    from irmeta.stats.agreement import qrels_agreement
    lines = DEMO.qrels.read_text().splitlines(keepends=True)
    kept = [ln for ln in lines if ln.split()[0] not in ("301", "302")]
    b = tmp_path / "b.qrels"
    b.write_text("".join(kept))
    with pytest.warns(UserWarning, match=r"judges nothing for 2 of the 50 topics .*: 301, 302"):
        qrels_agreement(QRELS, b, RUNS[:3], ["AP"])


def test_qrels_agreement_same_topics_no_note():
    import warnings

    from irmeta.stats.agreement import qrels_agreement
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        qrels_agreement(QRELS, QRELS, RUNS[:3], ["AP"])


# ----------------------------------------------- item 13: --rare must be a rareness measure
@pytest.mark.parametrize("rare", ["AP", "nDCG", "AP_rare(alpha=0.5)@10", "bogus"])
def test_reusability_refuses_a_non_rareness_measure(capsys, rare):
    _exit2(capsys, ["meta", "reusability", QRELS, *RUNS, "-m", "AP", "--groups", GROUPS,
                    "--rare", rare], "is not a rareness measure")


def test_reusability_takes_both_rareness_families():
    from irmeta.io.load import load_campaign
    from irmeta.stats.reusability import reusability
    c = load_campaign(QRELS, RUNS, warn_dropped=False)
    for rare in ("AP_rare(alpha=0.5)", "P_rare(alpha=1)"):
        res = reusability(c, ["AP"], demo_groups(), depth=20, rare=rare)
        assert f"mean_{rare}@20" in res.groups.columns


# ----------------------------------------------- item 14: options constructed directly
@pytest.mark.parametrize("build, phrase", [
    (lambda: __import__("irmeta.options").options.ReadOptions(subtopic_qrels=123),
     "ReadOptions: subtopic_qrels must be a path"),
    (lambda: __import__("irmeta.options").options.ScoreOptions(groups={"a": 1}),
     "ScoreOptions: groups must map each run to a group name"),
    (lambda: __import__("irmeta.options").options.ScoreOptions(groups={1: "g"}),
     "ScoreOptions: groups must map run names"),
    (lambda: __import__("irmeta").evaluate(QRELS, RUNS[:2], ["AP"], groups={"a": 1}),
     "evaluate: groups must map each run to a group name"),
])
def test_options_check_their_fields(build, phrase):
    from irmeta.errors import ParameterError
    with pytest.raises(ParameterError) as err:
        build()
    assert phrase in str(err.value)


# ----------------------------------------------- item 15: xz with trailing garbage
RUN_TEXT = b"301 Q0 d1 1 2.0 a\n301 Q0 d2 2 1.0 a\n"


def _compressed(kind, data):
    import bz2
    import gzip
    import lzma
    return {"gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[kind](data)


@pytest.mark.parametrize("kind", ["gzip", "bz2", "xz"])
def test_trailing_garbage_after_a_compressed_stream_is_refused(tmp_path, capsys, kind):
    run = tmp_path / "run"
    run.write_bytes(_compressed(kind, RUN_TEXT) + b"GARBAGE")
    _exit2(capsys, ["eval", QRELS, str(run), "-m", "P@5"], str(run), "unreadable")


@pytest.mark.parametrize("tail, lines", [(b"", 2), (b"\0\0\0\0", 2), ("again", 4)])
def test_xz_streams_and_padding_read_as_xz_does(tmp_path, tail, lines):
    import lzma

    from irmeta.io.source import read_bytes
    one = lzma.compress(RUN_TEXT)
    run = tmp_path / "run.xz"
    run.write_bytes(one + (one if tail == "again" else tail))
    assert read_bytes(run).count(b"\n") == lines


def test_xz_cut_short_is_refused(tmp_path):
    import lzma

    from irmeta.errors import InputError
    from irmeta.io.source import read_bytes
    run = tmp_path / "run.xz"
    run.write_bytes(lzma.compress(RUN_TEXT * 100)[:-20])
    with pytest.raises(InputError, match="unreadable xz data"):
        read_bytes(run)


def test_large_xz_reads_whole(tmp_path):
    import lzma

    from irmeta.io.source import read_bytes
    text = b"".join(b"301 Q0 d%d %d 1.0 a\n" % (i, i + 1) for i in range(200_000))
    run = tmp_path / "run.xz"
    run.write_bytes(lzma.compress(text, preset=0))
    assert read_bytes(run) == text


# ----------------------------------------------- item 16: CSV formula injection
EVIL = "=HYPERLINK(\"x\")"


def _evil_campaign(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n")
    paths = []
    for tag, order in ((EVIL, ("d1", "d2", "d3")), ("@SUM(1+1)", ("d2", "d1", "d3"))):
        path = tmp_path / f"run{len(paths)}"
        rows = [("1", order[0], 2.0), ("1", order[1], 1.0), ("2", order[2], 1.0)]
        path.write_text("".join(f"{t} Q0 {d} {i + 1} {s} {tag}\n"
                                for i, (t, d, s) in enumerate(rows)))
        paths.append(str(path))
    return str(qrels), paths


@pytest.mark.parametrize("argv", [
    ["eval", "{q}", "{r0}", "{r1}", "-m", "AP", "--format", "csv"],
    ["eval", "{q}", "{r0}", "{r1}", "-m", "AP", "-q", "--format", "csv"],
    ["compare", "{q}", "{r0}", "{r1}", "-m", "AP", "--format", "csv"],
    ["pool", "{r0}", "{r1}", "--format", "csv"],
    ["meta", "qrels-agreement", "{q}", "{q}", "{r0}", "{r1}", "-m", "AP", "--part",
     "scores", "--format", "csv"],
])
def test_csv_cells_that_start_a_formula_are_neutralised(tmp_path, capsys, argv):
    import csv
    import io
    q, (r0, r1) = _evil_campaign(tmp_path)
    assert main([a.format(q=q, r0=r0, r1=r1) for a in argv]) == 0
    cells = [c for row in csv.reader(io.StringIO(capsys.readouterr().out)) for c in row]
    assert any(c.startswith("'=HYPERLINK") or c.startswith("'@SUM") for c in cells), cells
    assert not [c for c in cells if c[:1] in ("=", "@", "+")], cells


def test_tsv_and_json_stay_exact(tmp_path, capsys):
    q, (r0, r1) = _evil_campaign(tmp_path)
    assert main(["eval", q, r0, r1, "-m", "AP", "--format", "tsv"]) == 0
    assert EVIL in capsys.readouterr().out
    assert main(["eval", q, r0, r1, "-m", "AP", "--format", "json"]) == 0
    assert EVIL.replace('"', '\\"') in capsys.readouterr().out


def test_csv_keeps_negative_numbers_numbers():
    import pandas as pd

    from irmeta.cli.tables import csv_safe
    frame = pd.DataFrame({"run": ["-x", "ok"], "delta": [-0.5, 0.25]})
    out = csv_safe(frame)
    assert list(out["run"]) == ["'-x", "ok"] and list(out["delta"]) == [-0.5, 0.25]


# ----------------------------------------------- item 17: BOM and CRLF in small files
def test_run_info_with_bom_and_crlf(tmp_path):
    from irmeta.io.runinfo import read_run_info
    path = tmp_path / "info.tsv"
    path.write_bytes(b"\xef\xbb\xbfrun\tgroup\r\na\tg1\r\nb\tg2\r\n")
    assert read_run_info(path).to_dict() == {"group": {"a": "g1", "b": "g2"}}


def test_groups_with_bom_and_crlf(tmp_path):
    from irmeta.io.load import read_groups
    path = tmp_path / "groups.txt"
    path.write_bytes(b"\xef\xbb\xbfa g1\r\nb g2\r\n")
    assert read_groups(path) == {"a": "g1", "b": "g2"}
