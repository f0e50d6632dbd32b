"""What a campaign is, for the report's header (``irmeta report --campaign-info FILE``):
a small TOML file an organizer writes once per track (issue 33, item 2).

    title = "TREC 2021 Deep Learning Track: passage ranking"
    track = "Deep Learning (passages)"
    year = 2021
    description = "63 runs from 13 groups on the MS MARCO v2 passage collection."
    pool_depth = 10
    judging = "NIST assessors, four grades (0-3); the pool was judged by HiCAL."
    qrels_version = "2021-passage-qrels v1"

    [links]
    "Track guidelines" = "https://microsoft.github.io/msmarco/TREC-Deep-Learning"

Every key is optional; any other key, a value of the wrong type and a file that is not
TOML are an :class:`~irmeta.errors.InputError` naming the file and the line (exit 2).
A link's target must be an ``http``, ``https`` or ``mailto`` address, or a relative path
(a ``javascript:`` address would run in every reader's browser); every text is escaped on
the page like a run name. The decisions: docs/report.md, "Campaign information".
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Mapping, cast

from irmeta.errors import InputError, ParameterError

__all__ = ["CAMPAIGN_INFO_KEYS", "CampaignInfo", "campaign_info", "read_campaign_info"]

#: each key of a campaign-info file, its type and what it is
CAMPAIGN_INFO_KEYS: dict[str, tuple[type, str]] = {
    "title": (str, "the page title (replaces 'Campaign report: <qrels file name>')"),
    "track": (str, "the track or task name"),
    "year": (int, "the campaign's year"),
    "description": (str, "a paragraph on the campaign"),
    "pool_depth": (int, "the depth to which runs were pooled for judging"),
    "judging": (str, "how the pool was judged (assessors, grades, procedure)"),
    "qrels_version": (str, "the name or version of the qrels release"),
    "links": (dict, "a table of label = address (guidelines, overview paper, data)"),
}
_SAFE_LINK = re.compile(r"^(https?://|mailto:)|^(?![A-Za-z][A-Za-z0-9+.-]*:)", re.IGNORECASE)


@dataclass(frozen=True)
class CampaignInfo:
    """A campaign's description; ``None`` for a key the file did not give. ``links``:
    (label, address) pairs in file order; ``source``: the file it was read from."""

    title: str | None = None
    track: str | None = None
    year: int | None = None
    description: str | None = None
    pool_depth: int | None = None
    judging: str | None = None
    qrels_version: str | None = None
    links: tuple[tuple[str, str], ...] = ()
    source: str | None = None

    def items(self) -> list[tuple[str, str]]:
        """(label, text) of every key given, in :data:`CAMPAIGN_INFO_KEYS` order
        (the links joined), for the parameters table."""
        out = []
        for key in CAMPAIGN_INFO_KEYS:
            value = getattr(self, key)
            if key == "links":
                if value:
                    out.append(("links", ", ".join(f"{label} ({url})" for label, url in value)))
            elif value is not None:
                out.append((key.replace("_", " "), str(value)))
        return out


def read_campaign_info(path: str | os.PathLike[str]) -> CampaignInfo:
    """The :class:`CampaignInfo` of the TOML file ``path``."""
    import tomllib
    where = os.fspath(path)
    try:
        with open(where, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise InputError(f"cannot read the campaign-info file: {exc.strerror or exc}",
                         path=where) from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text", path=where, line=raw[:exc.start].count(b"\n") + 1,
                         expected="a TOML file (UTF-8)") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = re.search(r"\(at line (\d+), column \d+\)", message)
        reason = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
        raise InputError(f"not TOML: {reason}", path=where,
                         line=int(found.group(1)) if found else None,
                         expected="key = value lines (https://toml.io)") from exc
    return _info(data, where, text)


def campaign_info(value: Any, fn: str) -> CampaignInfo | None:
    """``value`` (None, a path, a mapping of the file's keys or a :class:`CampaignInfo`)
    as a :class:`CampaignInfo`; anything else is a :class:`ParameterError` of ``fn``."""
    if value is None or isinstance(value, CampaignInfo):
        return value
    if isinstance(value, (str, os.PathLike)):
        return read_campaign_info(value)
    if isinstance(value, Mapping):
        return _info(dict(value), f"{fn}: campaign_info", None)
    raise ParameterError(f"{fn}: campaign_info must be a TOML file's path, a mapping of its "
                         f"keys or a CampaignInfo, got {type(value).__name__}")


def _info(data: dict[str, Any], where: str, text: str | None) -> CampaignInfo:
    values: dict[str, Any] = {}
    value: Any
    for key, value in data.items():
        line = _line_of(text, key)
        if key not in CAMPAIGN_INFO_KEYS:
            raise _error(f"unknown key {key!r}", where, line,
                         "one of " + ", ".join(CAMPAIGN_INFO_KEYS))
        kind, what = CAMPAIGN_INFO_KEYS[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise _error(f"{key} is {_type_name(value)}", where, line,
                         f"{_type_name(kind)}: {what}")
        if key == "links":
            values[key] = _links(cast(dict[str, Any], value), where, text)
        elif kind is int and cast(int, value) < 0:
            raise _error(f"{key} is {value}", where, line, "a non-negative integer")
        else:
            values[key] = value.strip() if isinstance(value, str) else value
    return CampaignInfo(**values, source=where if text is not None else None)


def _links(table: dict[str, Any], where: str, text: str | None) -> tuple[tuple[str, str], ...]:
    out = []
    for label, url in table.items():
        line = _line_of(text, label)
        if not isinstance(url, str):
            raise _error(f"link {label!r} is {_type_name(url)}", where, line,
                         "a string: label = \"https://...\"")
        if not _SAFE_LINK.match(url.strip()):
            raise _error(f"link {label!r} has the address {url!r}", where, line,
                         "an http, https or mailto address, or a relative path")
        out.append((str(label), url.strip()))
    return tuple(out)


def _error(reason: str, where: str, line: int | None, expected: str) -> Exception:
    if where.endswith(": campaign_info"):                     # a mapping from Python
        return ParameterError(f"{where}: {reason} (expected {expected})")
    return InputError(reason, path=where, line=line, expected=expected)


def _line_of(text: str | None, key: str) -> int | None:
    """The line where ``key`` is set (``key =``, quoted or not, or ``[key]``), for the
    message: tomllib reports no position for a valid file."""
    if text is None:
        return None
    pattern = re.compile(r"^\s*(\[\s*)?(" + re.escape(key) + r"|\"" + re.escape(key)
                         + r"\"|'" + re.escape(key) + r"')\s*(=|\])")
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            return number
    return None


def _type_name(value: Any) -> str:
    kind = value if isinstance(value, type) else type(value)
    return {str: "a string", int: "an integer", dict: "a table", float: "a number",
            list: "an array", bool: "true/false"}.get(kind, kind.__name__)
