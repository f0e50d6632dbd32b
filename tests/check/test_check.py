"""irmeta check (issue 33 item 1): planted defects, each found at its line and rule."""

from __future__ import annotations

import gzip
import json
import random

import pytest
from click.testing import CliRunner

from irmeta.cli.main import cli, main
from irmeta.submissions import MAX_PER_RULE, check

TOPICS = "1\n2\n3\n"


def _clean(tag: str = "A") -> str:
    return "".join(f"{t} Q0 d{t}_{r} {r} {10 - r} {tag}\n" for t in (1, 2, 3)
                   for r in range(1, 4))


def _write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _found(result) -> set[tuple[str, int | None]]:
    return {(p.rule, p.line) for p in result.problems}


#: name -> (run text, (rule, line) expected); lines counted from 1
DEFECTS = {
    "fields_l2": ("1 Q0 d1 1 3 A\n1 Q0 d2 2\n2 Q0 d 1 1 A\n3 Q0 d 1 1 A\n",
                  ("malformed", 2)),
    # a seventh field: trec_eval (and irmeta eval) ignore it, a submission checker refuses
    # it ("extra fields"); space- and tab-separated files alike
    "extra_field_l2": ("1 Q0 d1 1 3 A\n1 Q0 d2 2 2 A junk\n2 Q0 d 1 1 A\n3 Q0 d 1 1 A\n",
                       ("malformed", 2)),
    "extra_field_tab_l3": ("1\tQ0\td1\t1\t3\tA\n2\tQ0\td\t1\t1\tA\n"
                           "3\tQ0\td\t1\t1\tA\textra\n", ("malformed", 3)),
    "rank_l1": ("1 Q0 d1 x 3 A\n2 Q0 d 1 1 A\n3 Q0 d 1 1 A\n", ("malformed", 1)),
    "score_l3": ("1 Q0 d1 1 3 A\n2 Q0 d 1 1 A\n3 Q0 d 1 inf A\n", ("malformed", 3)),
    "topic_l4": ("1 Q0 d1 1 3 A\n2 Q0 d 1 1 A\n3 Q0 d 1 1 A\n7 Q0 d 1 1 A\n",
                 ("unknown-topic", 4)),
    "depth_l3": ("1 Q0 a 1 3 A\n1 Q0 b 2 2 A\n1 Q0 c 3 1 A\n2 Q0 d 1 1 A\n3 Q0 d 1 1 A\n",
                 ("too-deep", 3)),
    "duplicate_l2": ("1 Q0 a 1 3 A\n1 Q0 a 2 2 A\n2 Q0 d 1 1 A\n3 Q0 d 1 1 A\n",
                     ("duplicate-document", 2)),
    "tag_l3": ("1 Q0 a 1 3 A\n2 Q0 d 1 1 A\n3 Q0 d 1 1 B\n", ("tag-changes", 3)),
    "missing_topic": ("1 Q0 a 1 3 A\n2 Q0 d 1 1 A\n", ("missing-topic", None)),
    "rank_order_l2": ("1 Q0 a 1 1 A\n1 Q0 b 2 5 A\n2 Q0 d 1 1 A\n3 Q0 d 1 1 A\n",
                      ("rank-order", 2)),
    "crlf_blank_l4": ("1 Q0 a 1 3 A\r\n\r\n2 Q0 d 1 1 A\r\n3 Q0 d 1 1\r\n",
                      ("malformed", 4)),
    "empty": ("", ("empty", None)),
}


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_planted_defect_found_at_its_line(tmp_path, name):
    text, expected = DEFECTS[name]
    topics = _write(tmp_path, "topics.txt", TOPICS)
    [result] = check([_write(tmp_path, name, text)], topics=topics, depth=2)
    assert expected in _found(result)
    severity = "warning" if expected[0] in ("missing-topic", "rank-order") else "error"
    assert result.ok is (severity == "warning")


def test_clean_run_passes_with_exit_0(tmp_path):
    run = _write(tmp_path, "clean", _clean())
    topics = _write(tmp_path, "topics.txt", TOPICS)
    [result] = check([run], topics=topics, depth=3)
    assert result.ok and result.problems == [] and result.run == "A"
    out = CliRunner().invoke(cli, ["check", run, "--topics", topics, "--depth", "3"])
    assert out.exit_code == 0, out.output


def test_an_error_exits_3_and_a_bad_argument_2(tmp_path, capsys):
    run = _write(tmp_path, "bad", "1 Q0 a 1\n")
    topics = _write(tmp_path, "topics.txt", TOPICS)
    assert main(["check", run, "--topics", topics]) == 3
    assert main(["check", run, "--topics", str(tmp_path / "no")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["check", run]) == 2   # no topic set
    assert main(["check", run, "--topics", topics, "--groups", topics]) == 2


def test_tag_reused_across_files_and_groups(tmp_path):
    a = _write(tmp_path, "a", _clean("A"))
    a2 = _write(tmp_path, "a2", _clean("A"))
    b = _write(tmp_path, "b", _clean("B"))
    c = _write(tmp_path, "c", _clean("C"))
    groups = _write(tmp_path, "groups", "A g1\nB g1\nC g2\n")
    topics = _write(tmp_path, "topics.txt", TOPICS)
    ra, ra2, rb, rc = check([a, a2, b, c], topics=topics, groups=groups,
                            max_runs_per_group=1)
    assert ("tag-reused", None) in _found(ra) and ("tag-reused", None) in _found(ra2)
    assert ("too-many-runs", None) in _found(rb) and rc.ok


def test_docids(tmp_path):
    run = _write(tmp_path, "r", "1 Q0 a 1 3 A\n2 Q0 zz 1 1 A\n3 Q0 a 1 1 A\n")
    docids = _write(tmp_path, "docids", "a\nb\n")
    [result] = check([run], topics=["1", "2", "3"], docids=docids)
    assert _found(result) == {("unknown-document", 2)}


def test_every_problem_bounded_to_100_per_rule_then_counted(tmp_path):
    lines = ["1 Q0 a 1 3 A"] + ["1 Q0 x" for _ in range(250)] + ["2 Q0 a 1 1 A", "3 Q0 a 1 1 A"]
    [result] = check([_write(tmp_path, "r", "\n".join(lines) + "\n")], topics=["1", "2", "3"])
    malformed = [p for p in result.problems if p.rule == "malformed"]
    assert len(malformed) == MAX_PER_RULE and result.omitted == {"malformed": 150}
    assert [p.line for p in malformed] == list(range(2, 102))
    out = CliRunner().invoke(cli, ["check", str(tmp_path / "r"), "--topics",
                                   _write(tmp_path, "t", TOPICS)])
    assert "... and 150 more" in out.output


def test_gzip_lines_are_counted_after_decompression(tmp_path):
    path = tmp_path / "r.gz"
    path.write_bytes(gzip.compress(b"1 Q0 a 1 3 A\n\n2 Q0 a 1 1 A\n3 Q0 a 1 x A\n"))
    [result] = check([str(path)], topics=["1", "2"])
    assert _found(result) == {("malformed", 4)}


def test_corrupt_gzip_is_unreadable(tmp_path):
    path = tmp_path / "r.gz"
    path.write_bytes(gzip.compress(_clean().encode())[:20])
    [result] = check([str(path)], topics=["1", "2", "3"])
    assert [p.rule for p in result.problems] == ["unreadable"] and not result.ok


def test_json_shape(tmp_path):
    run = _write(tmp_path, "r", "1 Q0 a 1 1 A\n1 Q0 b 2 5 A\n")
    topics = _write(tmp_path, "topics.txt", TOPICS)
    out = CliRunner().invoke(cli, ["check", run, "--topics", topics, "--format", "json"])
    assert out.exit_code == 0
    data = json.loads(out.output)
    assert data == [{"file": run, "run": "A", "ok": True, "omitted": {}, "problems": [
        {"rule": "rank-order", "severity": "warning", "line": 2, "topic": "1",
         "message": data[0]["problems"][0]["message"]},
        {"rule": "missing-topic", "severity": "warning", "line": None, "topic": "2",
         "message": "topic '2' has no document"},
        {"rule": "missing-topic", "severity": "warning", "line": None, "topic": "3",
         "message": "topic '3' has no document"}]}]


def _reference(text: str, topics: set[str], depth: int) -> set[tuple[str, int | None]]:
    """A plain-Python checker of the line rules, for agreement with the fast one."""
    found: set[tuple[str, int | None]] = set()
    seen: dict[tuple[str, str], int] = {}
    count: dict[str, int] = {}
    rows: list[tuple[str, int, float, int]] = []
    tag0 = None
    for lineno, line in enumerate(text.split("\n"), 1):
        f = line.split()
        if not f:
            continue
        if len(f) != 6:
            found.add(("malformed", lineno))
            continue
        topic, _, doc, rank, score, tag = f
        try:
            r, s = int(rank), float(score)
        except ValueError:
            found.add(("malformed", lineno))
            continue
        tag0 = tag0 or tag
        if tag != tag0:
            found.add(("tag-changes", lineno))
        if topic not in topics and topic not in count:
            found.add(("unknown-topic", lineno))
        count[topic] = count.get(topic, 0) + 1
        if count[topic] == depth + 1:
            found.add(("too-deep", lineno))
        if (topic, doc) in seen:
            found.add(("duplicate-document", lineno))
        seen.setdefault((topic, doc), lineno)
        rows.append((topic, r, s, lineno))
    rows.sort(key=lambda x: (x[0], x[1]))
    for prev, cur in zip(rows, rows[1:]):
        if prev[0] == cur[0] and cur[2] > prev[2]:
            found.add(("rank-order", cur[3]))
    for t in topics - set(count):
        found.add(("missing-topic", None))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(30))
def test_fast_checker_agrees_with_a_plain_python_one(tmp_path, seed):
    rng = random.Random(seed)
    lines = []
    for _ in range(rng.randint(1, 60)):
        fields = [str(rng.randint(1, 5)), "Q0", f"d{rng.randint(1, 8)}",
                  str(rng.randint(1, 6)), str(rng.choice([1, 2, 3, 2.5])),
                  rng.choice("AAAAB")]
        if rng.random() < 0.05:
            fields = fields[:rng.randint(1, 5)]
        elif rng.random() < 0.05:
            fields[3] = "x"
        lines.append(" ".join(fields))
    text = "\n".join(lines) + "\n"
    [result] = check([_write(tmp_path, "r", text)], topics=["1", "2", "3", "4"], depth=3)
    assert _found(result) == _reference(text, {"1", "2", "3", "4"}, 3)


def test_a_run_without_a_group_is_an_error(tmp_path):
    a = _write(tmp_path, "a", _clean("A"))
    z = _write(tmp_path, "z", _clean("Z"))
    groups = _write(tmp_path, "groups", "A g1\n")
    ra, rz = check([a, z], topics=["1", "2", "3"], groups=groups, max_runs_per_group=2)
    assert ra.ok and _found(rz) == {("no-group", None)}


def test_standard_input_and_pipes_are_read_once(tmp_path, monkeypatch, capsys):
    import io
    import sys
    topics = _write(tmp_path, "topics.txt", TOPICS)
    data = ("1 Q0 a 1 3 A\n" * 2).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["check", "-", "--topics", topics, "--format", "json"]) == 3
    [out] = json.loads(capsys.readouterr().out)
    assert out["file"] == "-" and {(p["rule"], p["line"]) for p in out["problems"]} == {
        ("duplicate-document", 2), ("missing-topic", None)}


def _blocked_run(rng: random.Random, equal: bool) -> str:
    """A well-formed run written topic by topic (the fast path's common case): blocks of
    equal or of different lengths, with some repeated documents, rank swaps, rising
    scores and a changed tag planted."""
    lines = []
    for topic in rng.sample(range(1, 9), rng.randint(1, 6)):
        depth = 6 if equal else rng.randint(1, 12)
        for rank in range(1, depth + 1):
            doc = f"d{rng.randint(1, 3 * depth)}"
            r = rank if rng.random() > 0.1 else rng.randint(1, depth)
            score = 100 - rank + (5 if rng.random() < 0.1 else 0)
            tag = "A" if rng.random() > 0.03 else "B"
            lines.append(f"{topic} Q0 {doc} {r} {score} {tag}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(40))
def test_blocked_runs_agree_with_the_plain_python_checker(tmp_path, seed):
    """Runs in topic blocks take the per-block duplicate sort and the sort-free rank
    test; they must find exactly what the plain-Python checker finds."""
    rng = random.Random(seed)
    text = _blocked_run(rng, equal=seed % 2 == 0)
    topics = {"1", "2", "3", "4", "5"}
    [result] = check([_write(tmp_path, "r", text)], topics=sorted(topics), depth=5)
    assert _found(result) == _reference(text, topics, 5)


def test_a_run_of_many_parser_chunks(tmp_path, monkeypatch):
    """Document ids, tags, ranks and scores come from many Arrow chunks (a small parse
    block): fingerprints per chunk and the blocks' sort on two threads, values looked up
    across chunks."""
    import irmeta.io.trec as trec
    import irmeta.submissions as submissions
    monkeypatch.setattr(trec, "PARSE_BLOCK", 1 << 12)
    monkeypatch.setattr(submissions, "THREADED_SORT", 0)
    lines = [f"{t} Q0 d{t}_{r} {r} {1000 - r} A" for t in range(1, 41) for r in range(1, 101)]
    lines[2503] = "26 Q0 d26_2 4 996 A"            # topic 26, rank 4: d26_2 again
    lines[3707] = "38 Q0 d38_8 8 999 A"            # rank 8 scores above rank 7
    lines[3900] = "40 Q0 d40_1 1 999 B"            # another tag
    [result] = check([_write(tmp_path, "r", "\n".join(lines) + "\n")],
                     topics=[str(t) for t in range(1, 41)], depth=100)
    assert [(p.rule, p.line, p.topic, p.message) for p in result.problems] == [
        ("duplicate-document", 2504, "26", "document 'd26_2' again (first at line 2502)"),
        ("rank-order", 3708, "38", "rank 8 has score 999, higher than the score of a "
                                   "smaller rank"),
        ("tag-changes", 3901, "40", "run tag 'B', the file began with 'A'")]
    assert result.omitted == {}


def test_topic_codes_are_one_per_distinct_byte_string():
    """Chunks joined with a repeated dictionary entry still give one code per topic."""
    import pyarrow as pa

    from irmeta.submissions import _dictionary_codes
    chunk = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, 0], pa.int32()),
                                           pa.array([b"7", b"8", b"7"]))
    ids, codes = _dictionary_codes(pa.chunked_array([chunk]))
    assert ids == ["7", "8"] and codes.tolist() == [0, 1, 0, 0]


@pytest.mark.parametrize("seed", range(10))
def test_fingerprint_collisions_are_no_duplicates(tmp_path, monkeypatch, seed):
    """With fingerprints cut to 2 bits nearly every block has a repeated value: the
    candidates go to the exact test on the ids, which must find only real duplicates."""
    import numpy as np

    import irmeta.submissions as submissions
    real = submissions._fingerprints
    monkeypatch.setattr(submissions, "_fingerprints",
                        lambda docids: real(docids) & np.uint64(3))
    rng = random.Random(seed)
    text = _blocked_run(rng, equal=seed % 2 == 0)
    topics = {"1", "2", "3", "4", "5"}
    [result] = check([_write(tmp_path, "r", text)], topics=sorted(topics), depth=5)
    assert _found(result) == _reference(text, topics, 5)
    lines = text.splitlines(True)
    rng.shuffle(lines)   # topics no longer in blocks: the sort of (topic, fingerprint) keys
    [shuffled] = check([_write(tmp_path, "s", "".join(lines))], topics=sorted(topics),
                       depth=5)
    assert _found(shuffled) == _reference("".join(lines), topics, 5)
