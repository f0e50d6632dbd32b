"""A Parquet campaign folder is untrusted input (irmeta.shards.parquet, "validation"):
each check on its own — the manifest's fields, paths confined to the folder, each file's
columns and row groups, the value rules on rows — and ``irmeta convert``'s all-or-nothing
output. The broad sweep of mutations is tests/fuzz/test_fuzz_parquet.py."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import irmeta
from irmeta.cli.main import main
from irmeta.errors import InputError
from irmeta.shards import parquet
from irmeta.shards.partition import convert
from tests.shards.conftest import write_campaign

# the random campaigns' runs hold two topics outside the qrels, on purpose
pytestmark = pytest.mark.filterwarnings("ignore:.*not in the qrels:UserWarning")


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """(folder, manifest JSON, AP values) of a random campaign, 3 blocks of 3 topics."""
    base = tmp_path_factory.mktemp("conv")
    qrels, runs = write_campaign(base, 3)
    folder = base / "c.parquet"
    convert(qrels, runs, folder, block_topics=3)
    values = irmeta.evaluate(str(folder), None, ["AP"]).to_frame()
    return folder, json.loads((folder / "manifest.json").read_text()), values


@pytest.fixture
def folder(converted, tmp_path):
    target = tmp_path / "c.parquet"
    shutil.copytree(converted[0], target, symlinks=True)
    return target


def _manifest(folder, change) -> None:
    data = json.loads((folder / "manifest.json").read_text())
    change(data)
    (folder / "manifest.json").write_text(json.dumps(data))


def _error(folder) -> str:
    with pytest.raises(InputError) as got:
        irmeta.evaluate(str(folder), None, ["AP"])
    return str(got.value)


# ------------------------------------------------------------------ the manifest
def _set(path, value):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d.pop("runs"), "field runs is missing"),
    (lambda d: d["runs"][1].pop("file"), "field runs[1].file is missing"),
    (lambda d: d["qrels"].pop("row_groups"), "field qrels.row_groups is missing"),
    (_set(["runs", 0, "row_groups"], [0, 1]), "runs[0].row_groups: 2 entries"),
    (_set(["runs", 0, "row_groups"], [0, "1", 2]), "runs[0].row_groups[1]: '1' is not an"),
    (_set(["runs", 2, "row_groups"], [1, 0, 2]), "runs[2].row_groups[0]: row group 1"),
    (_set(["runs", 0, "dropped"], "2"), "runs[0].dropped: '2' is not an integer"),
    (_set(["runs", 0, "dropped"], -1), "runs[0].dropped: -1 is out of range"),
    (_set(["runs", 0, "exact_lines"], 1), "runs[0].exact_lines: 1 is not true or false"),
    (_set(["runs", 0, "exact_lines"], False), "runs[0].exact_lines: false for a Parquet"),
    (_set(["runs", 0, "name"], ""), "runs[0].name: '' is not a usable name"),
    (_set(["runs", 0, "name"], "a\nb"), "runs[0].name: 'a\\nb' is not a usable name"),
    (lambda d: d["runs"][1].update(name=d["runs"][0]["name"]), "runs[1].name: run name"),
    (_set(["runs", 0, "source"], 7), "runs[0].source: 7 is not a string"),
    (_set(["topics"], "t01"), "field topics: 't01' is not a list"),
    (lambda d: d["topics"].reverse(), "topics[1]: 't07' does not sort after 't08'"),
    (_set(["topics", 0], "t 1"), "topics[0]: 't 1' is not a topic id"),
    (lambda d: d["topics"].append("zz"), "blocks: the blocks end at topic 9 of 10"),
    (_set(["blocks", 1], [3, 5]), "blocks[2][0]: 6 is out of range"),
    (_set(["blocks", 0, 1], 2.5), "blocks[0][1]: 2.5 is not an integer"),
    (_set(["float32"], "yes"), "float32: 'yes' is not true or false"),
    (_set(["version"], True), "Parquet campaign version True"),
    (_set(["qrels"], []), "field qrels: [] is not an object"),
])
def test_each_manifest_field_is_checked(folder, change, field):
    _manifest(folder, change)
    message = _error(folder)
    assert message.startswith(f"{folder / 'manifest.json'}: "), message
    assert field in message, message


@pytest.mark.parametrize("raw", [b"", b"{\"format\": ", b"[" * 50_000 + b"]" * 50_000,
                                 b"\xff\xfe", b"[]"])
def test_a_manifest_that_is_not_a_json_object(folder, raw):
    (folder / "manifest.json").write_bytes(raw)
    assert str(folder / "manifest.json") in _error(folder)


# ------------------------------------------------------------------ paths
@pytest.mark.parametrize("how", ["absolute", "dotdot", "link", "folder link"])
def test_paths_leaving_the_folder_are_refused(folder, tmp_path, how):
    """The file outside is a valid run file: without the check the folder would make
    irmeta read it and print its numbers."""
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(folder / "runs" / "00001.parquet", outside / "x.parquet")
    if how == "absolute":
        _manifest(folder, _set(["runs", 0, "file"], str(outside / "x.parquet")))
    elif how == "dotdot":
        _manifest(folder, _set(["runs", 0, "file"], "../outside/x.parquet"))
    elif how == "link":
        os.unlink(folder / "runs" / "00000.parquet")
        os.symlink(outside / "x.parquet", folder / "runs" / "00000.parquet")
    else:
        shutil.move(str(folder / "runs"), str(outside / "runs"))
        os.symlink(outside / "runs", folder / "runs")
    message = _error(folder)
    assert "runs[0].file" in message and "campaign folder" in message, message


def test_a_link_inside_the_folder_is_followed(converted, folder):
    os.rename(folder / "runs" / "00002.parquet", folder / "real.parquet")
    os.symlink("../real.parquet", folder / "runs" / "00002.parquet")
    got = irmeta.evaluate(str(folder), None, ["AP"]).to_frame()
    assert got.equals(converted[2])


def test_a_fifo_is_refused_before_it_is_opened(folder):
    os.unlink(folder / "qrels.parquet")
    os.mkfifo(folder / "qrels.parquet")
    assert "qrels.parquet: not a regular file" in _error(folder)


# ------------------------------------------------------------------ files
def _rewrite(path, change) -> None:
    pf = pq.ParquetFile(path)
    groups = [change(pf.read_row_group(i)) for i in range(pf.num_row_groups)]
    with pq.ParquetWriter(path, groups[0].schema) as writer:
        for g in groups:
            writer.write_table(g, row_group_size=g.num_rows)


def test_a_missing_column_and_a_wrong_type(folder):
    run = folder / "runs" / "00001.parquet"
    _rewrite(run, lambda t: t.drop_columns(["line"]))
    assert f"{run}: column 'line' is missing" in _error(folder)
    _rewrite(run, lambda t: t.append_column("line", pa.array(np.arange(t.num_rows) + 1)))
    _rewrite(run, lambda t: t.set_column(2, "score", t.column("score").cast(pa.string())))
    assert f"{run}: column 'score' has type string (expected double" in _error(folder)


def test_row_groups_must_match_the_blocks(folder):
    run = folder / "runs" / "00003.parquet"
    table = pq.read_table(run)
    pq.write_table(table, run)   # one row group for three blocks
    message = _error(folder)
    assert f"{run}: the file has 1 row group(s), its manifest entry names 3" in message


def test_an_extra_column_and_an_unknown_key_are_ignored(converted, folder):
    _rewrite(folder / "runs" / "00000.parquet",
             lambda t: t.append_column("note", pa.array(["x"] * t.num_rows)))
    _manifest(folder, lambda d: d.update(comment="by hand"))
    assert irmeta.evaluate(str(folder), None, ["AP"]).to_frame().equals(converted[2])


# ------------------------------------------------------------------ rows
def _set_cell(path, group: int, row: int, column: str, value) -> None:
    pf = pq.ParquetFile(path)
    groups = [pf.read_row_group(i) for i in range(pf.num_row_groups)]
    t = groups[group]
    values = t.column(column).to_pylist()
    values[row] = value
    i = t.schema.get_field_index(column)
    groups[group] = t.set_column(i, column, pa.array(values, t.schema.field(i).type))
    with pq.ParquetWriter(path, t.schema) as writer:
        for g in groups:
            writer.write_table(g, row_group_size=g.num_rows)


@pytest.mark.parametrize(("file", "column", "value", "words"), [
    ("runs/00001.parquet", "score", float("nan"), "column 'score': nan is not a finite"),
    ("runs/00001.parquet", "score", float("-inf"), "column 'score': -inf is not a finite"),
    ("runs/00001.parquet", "score", None, "column 'score': null"),
    ("runs/00002.parquet", "docid", None, "column 'docid': null"),
    ("runs/00002.parquet", "docid", b"", "column 'docid': an empty document id"),
    ("runs/00000.parquet", "topic", 9, "column 'topic': topic index 9 is outside the "
                                        "campaign's 9 topics"),
    ("runs/00000.parquet", "topic", -1, "column 'topic': topic index -1 is outside"),
    ("runs/00000.parquet", "topic", 0, "column 'topic': topic index 0 ('t00') is not a "
                                       "topic of this row group's block (topics 3 to 5)"),
    ("runs/00000.parquet", "line", 0, "column 'line': line number 0"),
    ("qrels.parquet", "grade", 40000, "column 'grade': 40000 is out of range"),
    ("qrels.parquet", "grade", -2**63, f"column 'grade': {-2**63} is out of range"),
    ("qrels.parquet", "topic", 8, "column 'topic': topic index 8 ('t08') is not a topic "
                                  "of this row group's block"),
])
def test_a_bad_value_names_file_row_group_row_and_column(folder, file, column, value, words):
    _set_cell(folder / file, 1, 4, column, value)
    message = _error(folder)
    assert message.startswith(f"{folder / file}"), message
    assert "row group 1, row 4, " + words in message, message


def test_a_row_in_another_blocks_row_group_was_dropped_silently(converted, folder):
    """Before the check, a row moved into another block's row group was never read (its
    topic's shard does not read that row group): other numbers, exit 0."""
    run = folder / "runs" / "00000.parquet"
    pf = pq.ParquetFile(run)
    groups = [pf.read_row_group(i) for i in range(pf.num_row_groups)]
    row = groups[0].slice(0, 1)
    groups[0] = groups[0].slice(1)
    groups[2] = pa.concat_tables([groups[2], row])
    with pq.ParquetWriter(run, groups[0].schema) as writer:
        for g in groups:
            writer.write_table(g, row_group_size=g.num_rows)
    n = groups[2].num_rows - 1
    assert f"row group 2, row {n}, column 'topic'" in _error(folder)


def test_a_topic_without_judgments_is_refused(folder):
    """A manifest topic with no qrels row would be missing from its shard's campaign."""
    qrels = folder / "qrels.parquet"
    _rewrite(qrels, lambda t: t.filter(pa.array(np.asarray(t.column("topic")) != 4)))
    assert "topic 't04': no qrels row for this topic of the manifest" in _error(folder)


def test_a_damaged_page_is_found_by_its_checksum(folder):
    run = folder / "runs" / "00001.parquet"
    raw = bytearray(run.read_bytes())
    raw[200] ^= 0x10   # inside the first data page
    run.write_bytes(bytes(raw))
    assert str(run) in _error(folder)


def test_a_repeated_document_names_the_parquet_file_and_the_original_line(folder):
    run = folder / "runs" / "00001.parquet"
    _rewrite(run, lambda t: pa.concat_tables([t, t.slice(0, 1)]))
    message = _error(folder)
    assert "appears twice" in message and f"(read from {run})" in message, message


def test_the_cli_exits_2_with_the_message(folder, capsys):
    _set_cell(folder / "runs" / "00001.parquet", 0, 2, "score", float("inf"))
    assert main(["eval", "-m", "AP", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "00001.parquet, topic" in err and "row group 0, row 2" in err, err
    assert main(["explain", str(folder), "--run", "run1", "--topic", "t01"]) == 2
    assert "row group 0, row 2" in capsys.readouterr().err


# ------------------------------------------------------------------ convert
@pytest.fixture
def inputs(tmp_path):
    return write_campaign(tmp_path, 4)


def _leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_convert_into_a_missing_parent_is_exit_2(inputs, tmp_path, capsys):
    qrels, runs = inputs
    target = tmp_path / "nowhere" / "deeper" / "c.parquet"
    assert main(["convert", qrels, *runs, "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {target}" in err and f"{tmp_path / 'nowhere'} does not exist" in err


def test_convert_into_a_read_only_folder_is_exit_2(inputs, capsys):
    qrels, runs = inputs
    if not os.path.isdir("/sys/kernel"):
        pytest.skip("no /sys: no folder that even root cannot write in")
    target = "/sys/irmeta-convert-test"
    assert main(["convert", qrels, *runs, "-o", target]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {target}" in err and "/sys" in err, err


def test_convert_into_an_unwritable_folder_names_it(inputs, tmp_path, capsys, monkeypatch):
    """As a user without write permission (the test may run as root, which has it)."""
    from irmeta.shards import partition

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(partition, "_new_folder", refuse)
    qrels, runs = inputs
    target = tmp_path / "c.parquet"
    assert main(["convert", qrels, *runs, "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {target}: Permission denied (no permission to write in the " \
           f"folder {tmp_path})" in err, err


@pytest.mark.parametrize("existing", [False, True])
def test_a_failed_convert_leaves_nothing(inputs, tmp_path, capsys, existing):
    qrels, runs = inputs
    out = tmp_path / "out"
    out.mkdir()
    target = out / "c.parquet"
    if existing:
        target.mkdir()
    bad = tmp_path / "bad.txt"
    bad.write_text("t01 Q0 d1 1 1.0 bad\nt01 Q0 d2 2 nan bad\n")
    assert main(["convert", qrels, runs[0], str(bad), "-o", str(target)]) == 2
    assert f"{bad}:2" in capsys.readouterr().err
    assert _leftovers(out) == (["c.parquet"] if existing else [])
    if existing:
        assert _leftovers(target) == []
    assert main(["convert", qrels, *runs, "-o", str(out / "new")]) == 0
    mask = os.umask(0)
    os.umask(mask)
    assert ((out / "new").stat().st_mode & 0o777) == (0o777 & ~mask)


@pytest.mark.parametrize("existing", [False, True])
def test_an_interrupted_convert_leaves_nothing(inputs, tmp_path, monkeypatch, existing):
    from irmeta.shards import partition

    calls = []
    real = partition.convert_run_file

    def interrupted(task):
        calls.append(task)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(partition, "convert_run_file", interrupted)
    qrels, runs = inputs
    target = tmp_path / "out" / "c.parquet"
    target.parent.mkdir()
    if existing:
        target.mkdir()
    with pytest.raises(KeyboardInterrupt):
        convert(qrels, runs, target, block_topics=2)
    assert _leftovers(target.parent) == (["c.parquet"] if existing else [])
    if existing:
        assert _leftovers(target) == []


def test_convert_into_an_empty_folder_fills_it(inputs, tmp_path):
    qrels, runs = inputs
    target = tmp_path / "c.parquet"
    target.mkdir()
    done = convert(qrels, runs, target, block_topics=2)
    assert done.path == str(target)
    mask = os.umask(0)
    os.umask(mask)
    assert (target.stat().st_mode & 0o777) == (0o777 & ~mask)   # not private to the user
    assert _leftovers(target) == ["manifest.json", "qrels.parquet", "runs"]
    assert _leftovers(tmp_path) == sorted(["c.parquet", *[os.path.basename(p) for p in runs],
                                           "qrels.txt"])
    assert parquet.open_campaign(target).names == done.names


@pytest.mark.slow
@pytest.mark.parametrize("command", [["report", "-o", "{out}/r.html"],
                                     ["meta", "correlation", "-m", "AP", "-m", "P@5"],
                                     ["meta", "leaderboard", "-m", "AP"],
                                     ["eval", "-m", "AP", "--workers", "2"]])
def test_every_command_reading_a_folder_names_the_row(folder, tmp_path, capsys, command):
    _set_cell(folder / "runs" / "00002.parquet", 2, 3, "docid", None)
    args = [a.replace("{out}", str(tmp_path)) for a in command]
    words = 2 if args[0] == "meta" else 1   # the (sub)command, then the folder
    assert main([*args[:words], str(folder), *args[words:]]) == 2
    err = capsys.readouterr().err
    assert f"{folder / 'runs' / '00002.parquet'}, topic" in err, err
    assert "row group 2, row 3, column 'docid': null" in err, err
    assert "Traceback" not in err


@pytest.mark.slow
def test_ctrl_c_during_convert_leaves_nothing(tmp_path):
    """A real SIGINT to ``irmeta convert`` while it writes run files (DL21, 63 runs)."""
    import signal
    import subprocess
    import sys
    import time

    from tests.conftest import shared_path
    base = shared_path("trec-dl-2021-passage")
    runs = sorted(str(p) for p in (base / "runs").glob("*.gz"))
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-m", "irmeta.cli.main", "convert",
                             str(base / "qrels" / "qrels.dl21-passage.txt"), *runs,
                             "-o", str(out / "c.parquet")], env=env,
                            stderr=subprocess.PIPE, text=True)
    while proc.poll() is None and not list(out.glob(".c.parquet.*/runs/*.parquet")):
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode != 0, err       # interrupted before the end
    assert "Traceback" not in err, err
    assert _leftovers(out) == []
