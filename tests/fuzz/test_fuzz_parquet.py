"""Fuzz: mutate a Parquet campaign folder (``irmeta convert`` of the demo campaign); every
mutation gives either the clean folder's output (a mutation that keeps the data: an
unknown manifest key, an extra column, a link inside the folder) or exit status 2 with
one message naming the file at fault — ``manifest.json`` and the field, or the Parquet
file and, for a row, its row group and row — never exit 1, a traceback or another number.

The mutations: a manifest that is not JSON or not an object; a field removed or of the
wrong type or out of range; topics unsorted, repeated or not matching the blocks;
blocks and row groups that do not match the data; run names empty or repeated; file
names that leave the folder (absolute, ``..``, a link out) or name no regular file;
a Parquet file truncated, replaced by other bytes, with a column dropped, renamed or of
another type; NaN / infinite scores, nulls, empty document ids, out-of-range grades and
topic indices, rows moved into another block's row group, one row group for all blocks.

One example of each mutation runs in the quick loop (``test_each_mutation``, five in the
full suite); the broad sweep (``test_random_mutations``: random mutation, file, row and
value, shard sizes) is ``slow``. ``IRMETA_FUZZ_EXAMPLES=500`` for a deep run by hand;
``python -m tests.fuzz.count_parquet N`` counts the outcomes per mutation class.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irmeta
from irmeta.cli.main import main
from irmeta.demo import demo_paths
from irmeta.errors import InputError
from irmeta.measures.parse import parse_measures
from tests.quick import sampled

MEASURES = ["-m", "AP", "-m", "nDCG@10", "-m", "P@5"]
SETTINGS = settings(max_examples=int(os.environ.get("IRMETA_FUZZ_EXAMPLES", "60")),
                    deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """(folder, eval output) of the demo campaign's first 4 runs, 5 blocks of 10 topics."""
    paths = demo_paths()
    folder = tmp_path_factory.mktemp("clean") / "c.parquet"
    assert main(["convert", str(paths.qrels), *map(str, paths.runs[:4]), "-o", str(folder),
                 "--block-topics", "10"]) == 0
    return Clean((folder, _eval_output(folder)))


class Clean(tuple):
    """(folder, eval output), shown briefly in Hypothesis reports."""

    def __repr__(self) -> str:
        return "<the converted demo campaign>"


def _eval_output(folder, *extra) -> str:
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["eval", "-q", "--format", "tsv", *MEASURES, str(folder), *extra]) == 0
    return out.getvalue()


# ------------------------------------------------------------------ the mutations
@dataclass
class Expect:
    """What a mutated folder must give: the clean output (``same``), or exit 2 with a
    message holding every string of ``words`` (the file, the field, the row)."""

    words: list[str]
    same: bool = False
    either: bool = False   # the clean output, or exit 2 with the words


class Folder:
    """A copy of the clean folder to mutate, and helpers to do it."""

    def __init__(self, path: Path, rng: np.random.Generator):
        self.path = path
        self.rng = rng
        self.manifest = json.loads((path / "manifest.json").read_text())

    @property
    def mfile(self) -> str:
        return str(self.path / "manifest.json")

    def save(self) -> None:
        (self.path / "manifest.json").write_text(json.dumps(self.manifest))

    def entry(self) -> tuple[str, dict]:
        """A random file entry: ('qrels', its dict) or ('runs[i]', its dict)."""
        i = int(self.rng.integers(-1, len(self.manifest["runs"])))
        if i < 0:
            return "qrels", self.manifest["qrels"]
        return f"runs[{i}]", self.manifest["runs"][i]

    def file(self, kind: str | None = None) -> tuple[str, Path]:
        """(field prefix, path) of a random file (``kind``: 'qrels' or 'run')."""
        while True:
            field, e = self.entry()
            if kind is None or (kind == "qrels") == (field == "qrels"):
                return field, self.path / e.get("file", "qrels.parquet")

    def groups(self, path: Path) -> list[pa.Table]:
        pf = pq.ParquetFile(path)
        return [pf.read_row_group(i) for i in range(pf.num_row_groups)]

    def write(self, path: Path, groups: list[pa.Table]) -> None:
        schema = groups[0].schema
        with pq.ParquetWriter(path, schema) as writer:
            for g in groups:
                writer.write_table(g.cast(schema), row_group_size=max(1, g.num_rows))

    def cell(self, path: Path, column: str | None = None) -> tuple[list[pa.Table], int, int]:
        groups = self.groups(path)
        g = int(self.rng.integers(len(groups)))
        return groups, g, int(self.rng.integers(groups[g].num_rows))

    def set_cell(self, groups, g: int, r: int, column: str, value) -> None:
        table = groups[g]
        i = table.schema.get_field_index(column)
        values = table.column(column).to_pylist()
        values[r] = value
        groups[g] = table.set_column(i, column, pa.array(values, table.schema.field(i).type))


def _pick(f: Folder, options: list):
    return options[int(f.rng.integers(len(options)))]


# manifest: not JSON, not the shape
def m_not_json(f: Folder) -> Expect:
    raw = _pick(f, [b"", b"{", b"\xff\xfe{}", b"[" * 100_000 + b"]" * 100_000, b"null",
                    json.dumps(f.manifest).encode()[:-7], b"NaN"])
    (f.path / "manifest.json").write_bytes(raw)
    return Expect([f.mfile])


def m_drop_field(f: Folder) -> Expect:
    where, e = _pick(f, [("", f.manifest), ("qrels", f.manifest["qrels"]),
                         (f"runs[{len(f.manifest['runs']) - 1}]", f.manifest["runs"][-1])])
    key = _pick(f, {"": ["topics", "blocks", "qrels", "runs"], "qrels": ["row_groups"]}
                .get(where, ["name", "file", "row_groups"]))
    del e[key]
    f.save()
    return Expect([f.mfile, (where + "." if where else "") + key])


BAD_VALUES = ["x", 1.5, None, [], {}, True, -1, 10**30, [1, "a"], [[0]], float("inf"), ""]


def m_wrong_type(f: Folder) -> Expect:
    field, e = f.entry()
    paths = [("topics",), ("blocks",), ("blocks", 0), ("blocks", 0, 1), ("float32",),
             ("version",), ("format",), ("runs",), ("qrels",)]
    paths += [(field, k) for k in e] + [(field, "row_groups", 0)]
    path = _pick(f, paths)
    value = _pick(f, BAD_VALUES)
    target = f.manifest
    for p in path[:-1]:
        target = target["runs"][int(p[5:-1])] if isinstance(p, str) and p.startswith(
            "runs[") else target[p]
    key = path[-1]
    if key in ("source", "tag") and (value is None or isinstance(value, str)):
        value = 3  # null and any string are valid there
    if key == "dropped" and value in (True,):
        value = "x"
    if key == "name" and isinstance(value, str) and value:
        value = ""  # any other string is a valid run name
    if target[key] == value or (key == "float32" and isinstance(value, bool)):
        value = {"x": 1}
    target[key] = value
    f.save()
    return Expect([f.mfile])


def m_topics(f: Folder) -> Expect:
    topics = f.manifest["topics"]
    how = _pick(f, ["swap", "repeat", "empty", "space", "drop", "extra"])
    i = int(f.rng.integers(1, len(topics)))
    if how == "swap":
        topics[i - 1], topics[i] = topics[i], topics[i - 1]
    elif how == "repeat":
        topics[i] = topics[i - 1]
    elif how == "empty":
        topics[0] = ""
    elif how == "space":
        topics[i] = topics[i] + " x"
    elif how == "drop":
        del topics[i]
    else:
        topics.append("999")
    f.save()
    return Expect([f.mfile])


def m_blocks(f: Folder) -> Expect:
    blocks = f.manifest["blocks"]
    how = _pick(f, ["shift", "drop", "split", "empty", "overlap"])
    k = int(f.rng.integers(len(blocks) - 1))
    if how == "shift":       # the data's rows are then in the wrong block
        blocks[k][1] -= 1
        blocks[k + 1][0] -= 1
        f.save()
        return Expect(["row group", "topic"])
    if how == "drop":
        del blocks[-1]
    elif how == "split":
        blocks.append([blocks[-1][1], blocks[-1][1] + 1])
    elif how == "empty":
        blocks[k][1] = blocks[k][0]
    else:
        blocks[k + 1][0] -= 1
    f.save()
    return Expect([f.mfile, "blocks"])


def m_row_groups(f: Folder) -> Expect:
    field, e = f.entry()
    groups = e["row_groups"]
    how = _pick(f, ["swap", "range", "repeat", "short", "empty_block"])
    k = int(f.rng.integers(len(groups) - 1))
    if how == "swap":
        groups[k], groups[k + 1] = groups[k + 1], groups[k]
    elif how == "range":
        groups[-1] = 7
    elif how == "repeat":
        groups[k + 1] = groups[k]
    elif how == "short":
        del groups[-1]
    else:                  # a block marked empty: its row group holds rows of no block
        for j in range(k, len(groups)):
            groups[j] = groups[j] - 1 if j > k else -1
        f.save()
        return Expect([str(f.path / e.get("file", "qrels.parquet")), "row group"])
    f.save()
    return Expect([f.mfile, f"{field}.row_groups"])


def m_names(f: Folder) -> Expect:
    runs = f.manifest["runs"]
    how = _pick(f, ["empty", "space", "repeat", "no runs"])
    if how == "empty":
        runs[0]["name"] = ""
    elif how == "space":
        runs[0]["name"] = " " + runs[0]["name"]
    elif how == "repeat":
        runs[1]["name"] = runs[0]["name"]
    else:
        f.manifest["runs"] = []
    f.save()
    return Expect([f.mfile, "runs"])


def m_escape(f: Folder) -> Expect:
    """A file name that leaves the folder, to a valid Parquet file: without the check,
    exit 0 with another campaign's numbers."""
    field, e = f.entry()
    name = e.get("file", "qrels.parquet")
    outside = f.path.parent / "elsewhere"
    outside.mkdir(exist_ok=True)
    shutil.copy(f.path / name, outside / "x.parquet")
    how = _pick(f, ["absolute", "dotdot", "link", "dirlink", "backslash", "dot"])
    if how == "absolute":
        e["file"] = str(outside / "x.parquet")
    elif how == "dotdot":
        e["file"] = "../elsewhere/x.parquet"
    elif how == "link":
        os.unlink(f.path / name)
        os.symlink(outside / "x.parquet", f.path / name)
        f.save()
        return Expect([f.mfile, f"{field}.file", "out of the campaign folder"])
    elif how == "dirlink":
        shutil.move(str(f.path / "runs"), str(outside / "runs"))
        os.symlink(outside / "runs", f.path / "runs")
        field = "runs[0]"  # every run's file leaves the folder: the first is named
    elif how == "backslash":
        e["file"] = name.replace("/", "\\") if "/" in name else ".\\" + name
    else:
        e["file"] = "./" + name
    f.save()
    return Expect([f.mfile, f"{field}.file"])


def m_not_a_file(f: Folder) -> Expect:
    field, e = f.entry()
    name = e.get("file", "qrels.parquet")
    how = _pick(f, ["missing", "folder", "fifo", "other suffix", "same file"])
    target = f.path / name
    if how == "missing":
        os.unlink(target)
        return Expect([str(target)])
    if how == "folder":
        os.unlink(target)
        target.mkdir()
        return Expect([str(target), "regular file"])
    if how == "fifo":
        os.unlink(target)
        os.mkfifo(target)
        return Expect([str(target), "regular file"])
    if how == "other suffix":
        e["file"] = name + ".txt"
        f.save()
        return Expect([f.mfile, f"{field}.file"])
    f.manifest["runs"][-1]["file"] = f.manifest["runs"][0]["file"]
    f.save()
    return Expect([f.mfile, f"runs[{len(f.manifest['runs']) - 1}].file"])


# Parquet files
def p_bytes(f: Folder) -> Expect:
    _, path = f.file()
    raw = path.read_bytes()
    how = _pick(f, ["truncate", "empty", "garbage", "head", "text"])
    if how == "truncate":
        raw = raw[:int(f.rng.integers(1, len(raw)))]
    elif how == "empty":
        raw = b""
    elif how == "garbage":
        raw = bytes(f.rng.integers(0, 256, size=len(raw), dtype=np.uint8))
    elif how == "head":     # the footer kept, the data pages broken
        cut = int(f.rng.integers(4, len(raw) // 2))
        raw = raw[:4] + bytes(cut) + raw[4 + cut:]
    else:
        raw = b"301 Q0 d1 1 2.0 run\n"
    path.write_bytes(raw)
    return Expect([str(path)])


def p_bitflip(f: Folder) -> Expect:
    """One bit flipped anywhere in a file: irmeta convert writes page checksums, so a
    damaged data page is found (without them, 31 of 150 flips gave other numbers)."""
    _, path = f.file()
    raw = bytearray(path.read_bytes())
    k = int(f.rng.integers(4, len(raw) - 8))
    raw[k] ^= 1 << int(f.rng.integers(8))
    path.write_bytes(bytes(raw))
    return Expect([str(path)], either=True)


def p_columns(f: Folder) -> Expect:
    field, path = f.file()
    groups = f.groups(path)
    names = groups[0].column_names
    col = _pick(f, names)
    how = _pick(f, ["drop", "rename", "type"])
    if how == "drop":
        groups = [g.drop_columns([col]) for g in groups]
    elif how == "rename":
        groups = [g.rename_columns([c + "_x" if c == col else c for c in names])
                  for g in groups]
    else:
        new = {"topic": _pick(f, [pa.int64(), pa.string(), pa.float64(), pa.int16()]),
               "docid": _pick(f, [pa.string(), pa.large_binary()]),
               "score": _pick(f, [pa.string(), pa.float32(), pa.int64()]),
               "grade": _pick(f, [pa.float64(), pa.string(), pa.int32()]),
               "line": _pick(f, [pa.int32(), pa.float64()])}[col]
        i = names.index(col)
        groups = [g.set_column(i, col, pc.cast(g.column(col), new, safe=False))
                  for g in groups]
    f.write(path, groups)
    return Expect([str(path), repr(col + ("_x" if how == "rename" and False else ""))])


def p_value(f: Folder) -> Expect:
    """One bad value in one row: named by file, row group and row."""
    field, path = f.file()
    groups, g, r = f.cell(path)
    cols = ["topic", "docid", "line"] + (["grade"] if field == "qrels" else ["score"])
    col = _pick(f, cols)
    value = {"topic": _pick(f, [-1, 50, 2**31 - 1, None]),
             "docid": _pick(f, [b"", None]),
             "line": _pick(f, [0, -5, None]),
             "grade": _pick(f, [40000, -40000, None]),
             "score": _pick(f, [float("nan"), float("inf"), -float("inf"), None])}[col]
    f.set_cell(groups, g, r, col, value)
    f.write(path, groups)
    return Expect([str(path), f"row group {g}, row {r}", repr(col)])


def p_move_row(f: Folder) -> Expect:
    """A row moved into another block's row group."""
    _, path = f.file()
    groups = f.groups(path)
    g = int(f.rng.integers(len(groups)))
    h = (g + int(f.rng.integers(1, len(groups)))) % len(groups)
    r = int(f.rng.integers(groups[g].num_rows))
    row = groups[g].slice(r, 1)
    groups[g] = pa.concat_tables([groups[g].slice(0, r), groups[g].slice(r + 1)])
    at = int(f.rng.integers(groups[h].num_rows + 1))
    groups[h] = pa.concat_tables([groups[h].slice(0, at), row, groups[h].slice(at)])
    f.write(path, groups)
    return Expect([str(path), f"row group {h}, row {at}", "'topic'"])


def p_one_group(f: Folder) -> Expect:
    _, path = f.file()
    groups = f.groups(path)
    with pq.ParquetWriter(path, groups[0].schema) as writer:
        writer.write_table(pa.concat_tables(groups), row_group_size=10**9)
    return Expect([str(path), "row group"])


# mutations that keep the data: the same output
def same_extra(f: Folder) -> Expect:
    how = _pick(f, ["key", "column", "inner link", "indent"])
    if how == "key":
        f.manifest["comment"] = {"made by": "hand"}
        f.manifest["runs"][0]["note"] = [1, 2]
        f.save()
    elif how == "column":
        _, path = f.file()
        groups = f.groups(path)
        groups = [g.append_column("extra", pa.array(["x"] * g.num_rows)) for g in groups]
        f.write(path, groups)
    elif how == "inner link":
        _, path = f.file("run")
        os.rename(path, path.with_name("real.parquet"))
        os.symlink("real.parquet", path)
    else:
        (f.path / "manifest.json").write_text(json.dumps(f.manifest, indent=4))
    return Expect([], same=True)


MUTATIONS: dict[str, Callable[[Folder], Expect]] = {
    f.__name__: f for f in [m_not_json, m_drop_field, m_wrong_type, m_topics, m_blocks,
                            m_row_groups, m_names, m_escape, m_not_a_file, p_bytes,
                            p_bitflip, p_columns, p_value, p_move_row, p_one_group, same_extra]}


def run_case(clean, tmp_path, name: str, seed: int, extra: tuple = ()) -> tuple[int, str]:
    """Mutate a copy of the clean folder; check exit 2 and the message's words, or the
    same output; returns (exit status, message)."""
    folder, expected = clean
    work = tmp_path / f"case{seed}"
    shutil.copytree(folder, work / "c.parquet", symlinks=True)
    f = Folder(work / "c.parquet", np.random.default_rng(seed))
    want = MUTATIONS[name](f)
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["eval", "-q", "--format", "tsv", *MEASURES, str(f.path), *extra])
    message = err.getvalue()
    if want.same or (want.either and code == 0):
        assert code == 0, message
        assert out.getvalue() == expected
        return code, message
    assert code == 2, (name, seed, code, message)
    assert "Traceback" not in message and "internal error" not in message, message
    assert len(message.strip().splitlines()) == 1, message
    for word in want.words:
        assert word in message, (name, seed, word, message)
    return code, message


@pytest.mark.parametrize("name", sorted(MUTATIONS))
@pytest.mark.parametrize("seed", sampled(range(5), keep=1))
def test_each_mutation(clean, tmp_path, name, seed):
    run_case(clean, tmp_path, name, seed)


def test_the_api_raises_the_same_located_error(clean, tmp_path):
    """irmeta.evaluate and irmeta.open_shards on a mutated folder: an InputError naming
    the file and the row, the CLI's message."""
    code, message = run_case(clean, tmp_path, "p_value", 3)
    folder = tmp_path / "case3" / "c.parquet"
    with pytest.raises(InputError) as got:
        irmeta.evaluate(str(folder), None, ["AP"])
    assert str(got.value) in message
    with pytest.raises(InputError) as got, irmeta.open_shards(str(folder)) as c:
        c.evaluate(parse_measures(["AP"]))
    assert str(got.value) in message


@pytest.mark.slow
@SETTINGS
@given(data=st.data())
def test_random_mutations(clean, tmp_path_factory, data):
    name = data.draw(st.sampled_from(sorted(MUTATIONS)), "mutation")
    seed = data.draw(st.integers(0, 2**32 - 1), "seed")
    shard = data.draw(st.sampled_from([(), ("--shard-topics", "1"), ("--shard-topics", "7"),
                                       ("--shard-topics", "50")]), "shards")
    run_case(clean, tmp_path_factory.mktemp("fuzz"), name, seed, shard)
