"""Tokenise TREC lines exactly as trec_eval does, at the speed of a byte scan.

trec_eval splits a line on **any run of whitespace** (C's ``isspace``: space, tab,
``\\v``, ``\\f``, ``\\r``) and ignores leading and trailing whitespace. Arrow's CSV parser,
which irmeta uses for speed, splits on one fixed delimiter. This module sits between the
two: it streams the input in blocks and hands Arrow *canonical* lines — fields separated
by exactly one delimiter, no empty field, no blank or comment line — so that every field
Arrow sees is a trec_eval token.

Most blocks are already canonical (one tab or one space between fields; ``\\n``,
``\\r\\n`` or a lone ``\\r`` ends a line, all made ``\\n``): a handful of
``memchr``-speed scans prove it and the block passes through unchanged. Most untidy blocks
become canonical by :func:`squeeze` (a few C-speed byte replacements). Any other block is
rewritten by :func:`canonical_block`, a vectorised NumPy pass that finds the tokens of
every line, drops blank and comment lines, checks the number of fields, and (for runs)
drops fields after the sixth, as trec_eval does.

Skipped lines are remembered (:class:`LineMap`), so an error found later in a row still
names the line an editor shows.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np

from irmeta.data.lines import LineMap, RunsBuilder
from irmeta.errors import InputError
from irmeta.io.source import line_limit, line_too_long

BLOCK = 1 << 24  # bytes read at a time (16 MiB); lines are never split between blocks

#: byte classes: 0 token byte, 1 blank (isspace but newline), 2 newline
_CLASS = np.zeros(256, dtype=np.uint8)
_CLASS[[ord(" "), ord("\t"), 0x0B, 0x0C, ord("\r")]] = 1
_CLASS[ord("\n")] = 2
_HASH = ord("#")


@dataclass
class Layout:
    """What a line must hold: ``ncols`` fields; ``extra_ok``: fields after the last
    are ignored (runs) instead of being an error (qrels)."""

    kind: str
    ncols: int
    extra_ok: bool
    expected: str


RUN = Layout("run", 6, True, "6 fields: topic Q0 docid rank score tag")
QRELS = Layout("qrels", 4, False, "4 fields: topic iteration docid grade")


def is_canonical(block: bytes, ncols: int, delim: bytes) -> bool:
    """Whether ``block`` (whole lines, ending with ``\\n``, no ``\\r``) is already
    canonical for ``delim``: each line exactly ``ncols`` non-empty fields separated by
    one ``delim``, no other whitespace, no blank or comment line."""
    other = b" " if delim == b"\t" else b"\t"
    if other in block or b"\x0b" in block or b"\x0c" in block:
        return False
    if (block.startswith((b"\n", b"#", delim)) or b"\n\n" in block or b"\n#" in block
            or delim + delim in block or delim + b"\n" in block or b"\n" + delim in block):
        return False
    return block.count(delim) == (ncols - 1) * block.count(b"\n")


_BLANKS = b" \t\x0b\x0c\r"

#: bytes :func:`canonical_block` rewrites at a time: its arrays take about 60 bytes per
#: line, so a 16 MiB block of ``#\n`` lines would need 0.5 GiB at once
PIECE = 1 << 20


def pieces(block: bytes, size: int) -> Iterator[bytes]:
    """``block`` (whole lines) cut into runs of whole lines of about ``size`` bytes (a
    line longer than ``size`` is one piece)."""
    start = 0
    while start < len(block):
        end = block.rfind(b"\n", start, start + size) + 1
        if end <= start:   # one line longer than a piece
            end = block.find(b"\n", start + size) + 1 or len(block)
        yield block[start:end]
        start = end


def last_line_end(data: bytes) -> int:
    """Index of the last line end of ``data`` (``\\n``, or a lone ``\\r``), -1 if none.
    A ``\\r`` that is the last byte does not count: the next read may start with the
    ``\\n`` of a ``\\r\\n``."""
    end = len(data) - 1 if data.endswith(b"\r") else len(data)
    return max(data.rfind(b"\n", 0, end), data.rfind(b"\r", 0, end))


def unify_line_ends(block: bytes) -> bytes:
    """``\\r\\n`` and a lone ``\\r`` (old Mac line ends) made ``\\n``: a lone ``\\r`` is a
    line end, as it is for Arrow's parser on the fast path (docs/conventions.md, "Input")."""
    if b"\r" not in block:
        return block
    return block.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def squeeze(block: bytes, delim: bytes) -> bytes:
    """Every run of blanks made one ``delim``, blanks at line starts and ends dropped:
    a few C-speed passes that make most untidy blocks canonical (a trailing space on
    every line, a tab and spaces between fields). Blank and comment lines and wrong
    field counts are left for :func:`canonical_block`."""
    other = bytes(c for c in _BLANKS if c != delim[0])
    out = block.translate(bytes.maketrans(other, delim * len(other)))
    double = delim + delim
    while double in out:
        out = out.replace(double, delim)
    out = out.replace(b"\n" + delim, b"\n").replace(delim + b"\n", b"\n")
    return out[1:] if out.startswith(delim) else out


def _squeezed_canonical(block: bytes, ncols: int, delim: bytes) -> bool:
    """:func:`is_canonical` for the output of :func:`squeeze`, which has no other
    blank, no doubled delimiter and none at a line's start or end by construction."""
    if block.startswith((b"\n", b"#")) or b"\n\n" in block or b"\n#" in block:
        return False
    return block.count(delim) == (ncols - 1) * block.count(b"\n")


def _bad_fields(a: np.ndarray, tstart: np.ndarray, tend: np.ndarray, line_no: int, count: int,
                layout: Layout, name: str) -> InputError:
    topic = bytes(a[tstart[0]:tend[0]]).decode("utf-8", "backslashreplace") if count else None
    return InputError(f"{count} field{'s' if count != 1 else ''}", path=name, line=line_no,
                      topic=topic, expected=layout.expected)


def canonical_block(block: bytes, layout: Layout, delim: bytes, first_line: int,
                    name: str) -> tuple[bytes, np.ndarray]:
    """Rewrite whole lines into canonical form.

    Returns ``(data, skipped)``: the canonical bytes and the 1-based file lines that
    held no data (blank or comment lines). Raises :class:`InputError` for the first line
    with a wrong number of fields. ``block`` must end with ``\\n``; ``first_line`` is the
    file line of its first byte.
    """
    a = np.frombuffer(block, dtype=np.uint8)
    cls = _CLASS[a]
    tok = cls == 0
    nl_pos = np.flatnonzero(cls == 2)
    nlines = len(nl_pos)
    edge = np.diff(tok.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    tstart = np.flatnonzero(edge == 1)
    tend = np.flatnonzero(edge == -1)           # exclusive: the byte after the token
    tline = np.searchsorted(nl_pos, tstart)     # line (within block) of each token
    counts = np.bincount(tline, minlength=nlines)
    first_tok = np.searchsorted(tline, np.arange(nlines))
    has = counts > 0
    comment = np.zeros(nlines, dtype=bool)
    comment[has] = a[tstart[first_tok[has]]] == _HASH
    data = has & ~comment
    bad = data & ((counts < layout.ncols) | ((counts > layout.ncols) & ~layout.extra_ok))
    if bad.any():
        ln = int(np.flatnonzero(bad)[0])
        k = first_tok[ln]
        raise _bad_fields(a, tstart[k:], tend[k:], first_line + ln, int(counts[ln]),
                          layout, name)
    tidx = np.arange(len(tstart)) - first_tok[tline]
    keep = data[tline] & (tidx < layout.ncols)
    ks, ke = tstart[keep], tend[keep]
    mark = np.zeros(len(a) + 1, dtype=np.int8)
    mark[ks] = 1
    mark[ke + 1] -= 1
    inside = np.cumsum(mark[:-1], dtype=np.int8).view(bool)
    out = a[inside]                              # each kept token and the byte after it
    ends = np.cumsum(ke - ks + 1) - 1
    out[ends] = delim[0]
    out[ends[tidx[keep] == layout.ncols - 1]] = ord("\n")
    skipped = np.flatnonzero(~data).astype(np.int64) + first_line
    return out.tobytes(), skipped


class CanonicalStream(io.RawIOBase):
    """A readable binary stream of canonical lines over a raw TREC stream.

    ``delimiter`` is chosen from the first block (tab or space, whichever makes it
    canonical; tab otherwise); ``line_map`` is complete once the stream is exhausted.
    Errors found in a line raise :class:`InputError` from :meth:`readinto` (Arrow passes
    them through).
    """

    def __init__(self, raw: BinaryIO, layout: Layout, name: str) -> None:
        super().__init__()
        self._raw = raw
        self._layout = layout
        self._name = name
        self._carry = b""
        self._eof = False
        self._line = 1                 # file line of the next block's first byte
        self._lines_read = 0           # lines in the blocks read so far
        self._max_line = line_limit()  # longest line allowed (a decompression bomb)
        self._skipped = RunsBuilder()  # skipped lines as runs (never one int per line)
        self._started = False          # a byte-order mark is looked for in the first read
        self._buf = memoryview(b"")
        self._pending = self._next_raw()
        self.delimiter = b"\t"
        first = self._pending
        if first and not is_canonical(first, layout.ncols, b"\t") \
                and is_canonical(first, layout.ncols, b" "):
            self.delimiter = b" "

    @property
    def empty(self) -> bool:
        """The input holds no token at all (only whitespace, or nothing). Reads on past
        blocks of blank lines: only their lines are kept (one skipped run), not the
        blocks, so a file of gigabytes of blank lines takes no memory."""
        while self._pending is not None and not self._pending.strip():
            n = self._pending.count(b"\n")
            self._skipped.add_run(self._line, n)
            self._line += n
            self._pending = self._next_raw()
        return self._pending is None

    @property
    def line_map(self) -> LineMap:
        return LineMap(self._skipped.runs())

    def readable(self) -> bool:
        return True

    def _next_raw(self) -> bytes | None:
        """The next run of whole lines, every line end made ``\\n``; None at the end."""
        if self._eof:
            return None
        chunks = [self._carry]
        open_line = len(self._carry)   # bytes of the line not ended yet
        while True:
            data = self._raw.read(BLOCK)
            if not data:
                self._eof = True
                block = b"".join(chunks)
                break
            chunks.append(data)
            cut = last_line_end(data)
            # the longest-line cap, before the line is held whole: lines longer than a
            # read are the ones that span reads (the cap is at least BLOCK)
            first = min((i for i in (data.find(b"\n"), data.find(b"\r")) if i >= 0),
                        default=-1)
            open_line += len(data) if first < 0 else first
            if self._max_line is not None and open_line > self._max_line:
                raise line_too_long(self._name, self._lines_read + 1, self._max_line)
            if cut >= 0:
                joined = b"".join(chunks)
                cut = len(joined) - len(data) + cut
                block, self._carry = joined[:cut + 1], joined[cut + 1:]
                break
        if not self._started and block.startswith(b"\xef\xbb\xbf"):
            block = block[3:]  # a UTF-8 byte-order mark is not data
        self._started = True
        block = unify_line_ends(block)
        self._lines_read += block.count(b"\n")   # every line end is \n now
        if block and not block.endswith(b"\n"):
            block += b"\n"
        return block if block else None

    def raw_blocks(self) -> Iterator[tuple[int, bytes]]:
        """``(first file line, piece)`` for each piece of whole lines (for diagnosis and the
        blank-line scan): pieces of about :data:`PIECE` bytes, so that a scan's per-line
        arrays stay small on a block of millions of short lines."""
        while True:
            block = self._pending if self._pending is not None else self._next_raw()
            self._pending = None
            if block is None:
                return
            for piece in pieces(block, PIECE):
                first = self._line
                self._line += piece.count(b"\n")
                yield first, piece

    def canonical(self, block: bytes, first_line: int, strict: bool = False) -> bytes:
        """The canonical form of one block whose first byte is on ``first_line``.
        ``strict``: check every line's field count even when the block looks canonical."""
        if not strict:
            if b"\r" not in block and is_canonical(block, self._layout.ncols, self.delimiter):
                return block
            squeezed = squeeze(block, self.delimiter)
            if _squeezed_canonical(squeezed, self._layout.ncols, self.delimiter):
                return squeezed
        outs = []
        for piece in pieces(block, PIECE):  # NumPy's scratch bounded by a piece, not a block
            out, skipped = canonical_block(piece, self._layout, self.delimiter, first_line,
                                           self._name)
            self._skipped.add_lines(skipped)   # as runs, piece by piece
            first_line += piece.count(b"\n")
            outs.append(out)
        return outs[0] if len(outs) == 1 else b"".join(outs)

    def readinto(self, buffer: Any) -> int:  # a writable buffer (memoryview)
        while not self._buf:
            block = self._pending if self._pending is not None else self._next_raw()
            self._pending = None
            if block is None:
                return 0
            first = self._line
            self._line += block.count(b"\n")
            self._buf = memoryview(self.canonical(block, first))
        n = min(len(buffer), len(self._buf))
        buffer[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n
