"""The options of an evaluation as values: how inputs are read, how topics are scored,
where the work runs.

Three frozen dataclasses group the options that travel together (issue 23, item 0):

* :class:`ReadOptions` — how run and qrels files become a campaign (``max_docs``,
  ``names``, ``float32``, ``dedupe``, ``split_tags``, ``subtopic_qrels``);
* :class:`ScoreOptions` — how each topic is scored (``complete``, ``rel_level``,
  ``judged_only``, ``collection_size``, ``groups``, ``reference``, ``prior_runs``);
* :class:`WorkOptions` — where the work runs (``memory_budget``, ``shard_topics``,
  ``client``, ``spill_dir``, ``progress``, ``warn_dropped``).

They are built and checked **once**, at the edge — a public function
(:func:`irmeta.evaluate`, :func:`irmeta.open_shards`) or the CLI — with :meth:`checked`,
which names the public function (none for the CLI, ``fn=""``) and the argument in its
:class:`~irmeta.errors.ParameterError` (the vocabulary of :mod:`irmeta.constraints`);
the layers below (:func:`irmeta.evaluation.evaluate_in_shards`,
:mod:`irmeta.shards.local`, the shard tasks, the Parquet reader) take the objects whole
and never re-list their fields, so a new path cannot forget an option. A variant is
derived with :func:`dataclasses.replace`. Constructing a dataclass directly checks it too
(messages then name the class).

The public functions keep their keyword arguments; these objects are what they build.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from irmeta.constraints import REL_LEVEL, Flag, Integer, Strings
from irmeta.data.campaign import Campaign
from irmeta.errors import ParameterError

_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([kmgt]?)(i?b?)\s*", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(value, what: str = "memory_budget") -> int:
    """A size in bytes: an int, or a string with a binary unit (``"4G"``, ``"512MiB"``)."""
    if isinstance(value, bool):
        raise ParameterError(f"{what} must be a size in bytes or a string such as '4G', "
                             f"got {value!r}")
    if isinstance(value, int):
        size = value
    elif isinstance(value, str) and (match := _SIZE.fullmatch(value)):
        size = int(float(match.group(1)) * _UNITS[match.group(2).lower()])
    else:
        raise ParameterError(f"{what} must be a size in bytes or a string such as '4G', "
                             f"'512M', got {value!r}")
    if size < 1 << 20:
        raise ParameterError(f"{what} must be at least 1M (1 MiB), got {value!r}")
    return size


MAX_DOCS = Integer(low=1, optional=True)
COLLECTION_SIZE = Integer(low=0)
SHARD_TOPICS = Integer(low=1, optional=True)
FLAG = Flag()
PROGRESS = Flag(optional=True)
PRIOR_RUNS = Strings(allow_empty=True, optional=True)


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)   # canonical value into a frozen dataclass


@dataclass(frozen=True)
class ReadOptions:
    """How inputs are read (what :func:`irmeta.load_campaign` takes besides the files).

    ``max_docs``: keep the top documents per topic (trec_eval ``-M``); ``names``: the
    runs' names, in the order given (a tuple); ``float32``: scores rounded to 32-bit
    floats (trec_eval 9.x ties); ``dedupe``: keep the first of a document repeated in a
    topic; ``split_tags``: one run per tag of a file; ``subtopic_qrels``: diversity
    judgments (a path, DataFrame or SubtopicQrels), read once."""

    max_docs: int | None = None
    names: tuple[str, ...] | None = None
    float32: bool = False
    dedupe: bool = False
    split_tags: bool = False
    subtopic_qrels: Any = None

    def __post_init__(self) -> None:
        self._check(type(self).__name__)

    def _check(self, fn: str) -> None:
        _set(self, "max_docs", MAX_DOCS.check(self.max_docs, "max_docs", fn))
        if self.names is not None:
            from irmeta.io.load import _check_names  # the one check of explicit names
            try:
                _set(self, "names", tuple(_check_names(self.names)))
            except ParameterError as exc:
                raise ParameterError(f"{fn}: {exc}") from None
        for name in ("float32", "dedupe", "split_tags"):
            _set(self, name, FLAG.check(getattr(self, name), name, fn))
        _check_subtopic_qrels(self.subtopic_qrels, fn)

    @classmethod
    def checked(cls, fn: str, **given: Any) -> ReadOptions:
        """The options of the public function ``fn``, checked with messages naming it."""
        return _checked(cls, fn, given)

    @property
    def is_default(self) -> bool:
        """Nothing is asked of the reader (the options a built Campaign allows)."""
        return self == ReadOptions()

    def given(self) -> list[str]:
        """Names of the fields that differ from their defaults."""
        return [f.name for f in fields(self) if getattr(self, f.name) != f.default]


@dataclass(frozen=True)
class ScoreOptions:
    """How topics are scored: ``complete`` (trec_eval ``-c``: every qrels topic),
    ``rel_level`` (``-l``), ``judged_only`` (``-J``), ``collection_size`` (``-N``), and the
    context of the cross-run measures — ``groups`` (``{run: group}``, or a groups file
    path, read when checked: :func:`groups_argument`), ``reference``
    (a rarity reference :class:`~irmeta.data.campaign.Campaign`), ``prior_runs`` (the
    explicit NRG prior set, a tuple)."""

    complete: bool = False
    rel_level: int = 1
    judged_only: bool = False
    collection_size: int = 0
    groups: Mapping[str, str] | None = None   # a groups file path given is read when checked
    reference: Campaign | None = None
    prior_runs: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        self._check(type(self).__name__)

    def _check(self, fn: str) -> None:
        _set(self, "complete", FLAG.check(self.complete, "complete", fn))
        _set(self, "rel_level", REL_LEVEL.check(self.rel_level, "rel_level", fn))
        _set(self, "judged_only", FLAG.check(self.judged_only, "judged_only", fn))
        _set(self, "collection_size",
             COLLECTION_SIZE.check(self.collection_size, "collection_size", fn))
        if self.reference is not None and not isinstance(self.reference, Campaign):
            raise ParameterError(f"{fn}: reference must be a Campaign (irmeta.load_campaign), "
                                 f"got {type(self.reference).__name__}")
        if self.groups is not None:
            _set(self, "groups", _checked_groups(groups_argument(self.groups, fn), fn))
        prior = PRIOR_RUNS.check(self.prior_runs, "prior_runs", fn)
        _set(self, "prior_runs", None if prior is None else tuple(prior))

    @classmethod
    def checked(cls, fn: str, **given: Any) -> ScoreOptions:
        """The options of the public function ``fn``, checked with messages naming it."""
        return _checked(cls, fn, given)


@dataclass(frozen=True)
class WorkOptions:
    """Where the work runs: ``memory_budget`` (bytes, parsed from ``"4G"``; None: half the
    available memory), ``shard_topics`` (topics per shard), ``client`` (a
    ``dask.distributed`` Client), ``spill_dir`` (where the partitioned files go),
    ``progress`` (a bar over shards: None on a terminal only), ``warn_dropped`` (warn about
    run topics absent from the qrels)."""

    memory_budget: int | None = None
    shard_topics: int | None = None
    client: Any = None
    spill_dir: str | None = None
    progress: bool | None = None
    warn_dropped: bool = True

    def __post_init__(self) -> None:
        self._check(type(self).__name__)

    def _check(self, fn: str) -> None:
        if self.memory_budget is not None:
            try:
                _set(self, "memory_budget", parse_size(self.memory_budget))
            except ParameterError as exc:
                raise ParameterError(f"{fn}: {exc}") from None
        _set(self, "shard_topics", SHARD_TOPICS.check(self.shard_topics, "shard_topics", fn))
        if self.client is not None and not _is_dask_client(self.client):
            raise ParameterError(f"{fn}: client must be a dask.distributed Client, "
                                 f"got {type(self.client).__name__}")
        if self.spill_dir is not None:
            if not isinstance(self.spill_dir, (str, os.PathLike)):
                raise ParameterError(f"{fn}: spill_dir must be a folder path (str or "
                                     f"os.PathLike), got {type(self.spill_dir).__name__}")
            _set(self, "spill_dir", os.fspath(self.spill_dir))
        _set(self, "progress", PROGRESS.check(self.progress, "progress", fn))
        _set(self, "warn_dropped", FLAG.check(self.warn_dropped, "warn_dropped", fn))

    @classmethod
    def checked(cls, fn: str, **given: Any) -> WorkOptions:
        """The options of the public function ``fn``, checked with messages naming it."""
        return _checked(cls, fn, given)

    @property
    def asks_for_shards(self) -> bool:
        """``shard_topics`` or a ``client`` was given: shards whatever the size."""
        return self.shard_topics is not None or self.client is not None


def _check_subtopic_qrels(value: Any, fn: str) -> None:
    """Subtopic qrels are a path, a DataFrame or a SubtopicQrels (read when used)."""
    if value is None or isinstance(value, (str, os.PathLike)):
        return
    from irmeta.data.subtopics import SubtopicQrels
    from irmeta.data.tables import is_frame
    if not isinstance(value, SubtopicQrels) and not is_frame(value):
        raise ParameterError(f"{fn}: subtopic_qrels must be a path, a DataFrame (query_id, "
                             "subtopic_id, doc_id, relevance) or a SubtopicQrels, got "
                             f"{type(value).__name__}")


#: what a public function's ``groups=`` takes: a ``{run: group}`` mapping, or the path
#: of a groups file (``run group`` lines), as the CLI's ``--groups FILE``
GroupsArgument = Mapping[str, str] | str | os.PathLike[str]


def groups_argument(groups: Any, fn: str, runs: Any = None) -> Mapping[str, str] | None:
    """The ``groups=`` argument of the public function ``fn`` as a mapping: a mapping as
    it is, a groups file path read by :func:`irmeta.io.load.read_groups` (with ``runs``:
    every run must have a group and the file's other names are ignored, as the CLI's
    ``--groups`` of the same command); None stays None. Anything else is a
    :class:`~irmeta.errors.ParameterError`. The one place where a groups file becomes
    the mapping, for every function that takes ``groups`` (evaluate, compare, the
    meta functions through :class:`ScoreOptions`; pool, reusability, the report, explain)."""
    if groups is None or isinstance(groups, Mapping):
        return groups
    if isinstance(groups, (str, os.PathLike)):
        from irmeta.io.load import read_groups
        return read_groups(groups, None if runs is None else [str(r) for r in runs])
    raise ParameterError(f"{fn}: groups must be a {{run: group}} mapping or the path of a "
                         f"groups file (`run group` lines), got {type(groups).__name__}")


def _checked_groups(groups: Mapping[Any, Any] | None, fn: str) -> dict[str, str] | None:
    """``{run: group}`` with non-empty string runs and groups (a group file's lines); an
    empty mapping is no groups."""
    if groups is None:
        return None
    for run, group in groups.items():
        if not isinstance(run, str) or not run:
            raise ParameterError(f"{fn}: groups must map run names (non-empty strings) to "
                                 f"groups, got the key {run!r}")
        if not isinstance(group, str) or not group:
            raise ParameterError(f"{fn}: groups must map each run to a group name (a "
                                 f"non-empty string), got {group!r} for run {run!r}")
    return dict(groups) or None


def _is_dask_client(client: Any) -> bool:
    """A ``dask.distributed`` Client (looked up by class, so that a non-Dask object is
    refused without importing Dask when it is not installed)."""
    import sys
    distributed = sys.modules.get("distributed")
    if distributed is None:   # no Client can exist before distributed is imported
        return False
    return isinstance(client, distributed.Client)


def _checked(cls: Any, fn: str, given: dict[str, Any]) -> Any:
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(given) - names)
    if unknown:   # pragma: no cover - a programming error of a caller in irmeta
        raise TypeError(f"{cls.__name__}: unknown option(s) {', '.join(unknown)}")
    obj = object.__new__(cls)
    for f in fields(cls):
        object.__setattr__(obj, f.name, given.get(f.name, f.default))
    if fn:
        obj._check(fn)
        return obj
    try:   # the CLI: its error line names no function
        obj._check(_NO_FUNCTION)
    except ParameterError as exc:
        raise ParameterError(str(exc).replace(f"{_NO_FUNCTION}: ", "")) from None
    return obj


#: stands for the function name in the messages of :meth:`checked` with ``fn=""``
_NO_FUNCTION = "\x00"
