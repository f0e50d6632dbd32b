"""Turn whatever the user has (paths, DataFrames, dicts, parsed tables) into a campaign.

Run naming (``docs/conventions.md``): a run is named by its tag; when tags collide
across the files of one campaign, every file-read run is named by its file name
(extensions and trec_eval's ``input.`` prefix stripped); explicit ``names`` win.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from irmeta.data.campaign import Campaign, build_campaign
from irmeta.data.tables import Qrels, Run, decode_id, is_frame
from irmeta.data.threads import map_threads
from irmeta.errors import CampaignError, InputError, ParameterError
from irmeta.io import trec
from irmeta.io.tokens import unify_line_ends

PathLike = (str, os.PathLike)


def load_qrels(qrels: object) -> Qrels:
    """Qrels from a path, a DataFrame, a ``{topic: {doc: grade}}`` dict or a Qrels, or
    from the ecosystem (:mod:`irmeta.io.ecosystem`: ``irds:<id>``, ranx ``Qrels``,
    ``qrels_iter()`` namedtuples; PyTerrier frames are DataFrames)."""
    if isinstance(qrels, Qrels):
        return qrels
    from irmeta.io import ecosystem
    converted = ecosystem.load_qrels(qrels)
    if converted is not None:
        return converted
    if isinstance(qrels, PathLike):
        return trec.read_qrels(qrels)
    from irmeta.io import frames  # pandas, loaded only for DataFrames and dicts
    if is_frame(qrels):
        return frames.qrels_from_frame(qrels)
    if isinstance(qrels, Mapping):
        return frames.qrels_from_dict(qrels)
    raise InputError(f"cannot read qrels from {type(qrels).__name__}",
                     expected="a path, 'irds:<id>', a DataFrame (query_id, doc_id, relevance "
                              "or qid, docno, label), a dict, a ranx Qrels or qrels rows")


def _is_run_dict(obj: object) -> bool:
    if not isinstance(obj, Mapping) or not obj:
        return False
    first = next(iter(obj.values()))
    if not isinstance(first, Mapping) or not first:
        return False
    return not isinstance(next(iter(first.values())), Mapping)


def load_runs(runs: object, names: Sequence[str] | None = None, *, float32: bool = False,
              split_tags: bool = False) -> list[Run]:
    """Runs from paths, DataFrames, dicts or Runs (one or a list; a dict
    ``{name: {topic: {doc: score}}}`` gives named runs)."""
    from irmeta.io import ecosystem
    items: list[object] = []
    given_names: list[str | None] = []
    if (isinstance(runs, (Run, *PathLike)) or is_frame(runs) or _is_run_dict(runs)
            or ecosystem.is_ranx(runs, "Run") or ecosystem.is_rows(runs, "run")):
        runs = [runs]
    if isinstance(runs, Mapping):
        for key, value in runs.items():
            items.append(value)
            given_names.append(str(key))
    elif isinstance(runs, (list, tuple)):
        items = list(runs)
        given_names = [None] * len(items)
    else:
        raise InputError(f"cannot read runs from {type(runs).__name__}",
                         expected="a path, a DataFrame, a dict, or a list of those")
    if not items:
        raise CampaignError("a campaign needs at least one run")
    loaded: list[Run] = []
    from_file: list[bool] = []
    files = [item for item in items
             if isinstance(item, PathLike) and not ecosystem.is_irds(item)]
    parsed = _read_files(files, float32=float32, split_tags=split_tags)
    for i, (item, gname) in enumerate(zip(items, given_names)):
        is_file = isinstance(item, PathLike) and not ecosystem.is_irds(item)
        eco = None if isinstance(item, Run) else ecosystem.load_run(item, gname, f"run{i + 1}")
        if isinstance(item, Run):
            got = [item]
        elif eco is not None:
            got = [eco]
        elif isinstance(item, PathLike):
            read = parsed.pop(0)
            got = read if isinstance(read, list) else [read]
        elif is_frame(item):
            from irmeta.io import frames
            got = frames.runs_from_frame(item, gname or f"run{i + 1}")
        elif isinstance(item, Mapping):
            from irmeta.io import frames
            got = [frames.run_from_dict(item, gname or f"run{i + 1}")]
        else:
            raise InputError(f"cannot read a run from {type(item).__name__}",
                             expected="a path, 'irds:<id>', a DataFrame (query_id, doc_id, "
                                      "score or qid, docno, score), a dict, a ranx Run or "
                                      "ScoredDoc rows")
        if gname is not None and len(got) == 1:
            got = [got[0].renamed(gname)]
        if float32 and not is_file:
            for r in got:
                r.scores = r.scores.astype("float32").astype("float64")
        loaded.extend(got)
        from_file.extend([is_file and not split_tags] * len(got))
    _resolve_names(loaded, from_file)
    if names is not None:
        names = _check_names(names)
        if len(names) != len(loaded):
            raise CampaignError(f"{len(names)} names given for {len(loaded)} runs")
        loaded = [r.renamed(n) for r, n in zip(loaded, names)]
    return loaded


def _check_names(names: object) -> list[str]:
    """Explicit run names: a sequence of distinct, non-empty strings without whitespace
    (a single string is refused: ``names='ab'`` is not the two runs ``a`` and ``b``)."""
    if isinstance(names, (str, bytes)) or not isinstance(names, Sequence):
        raise ParameterError(f"names must be a list of run names, got {names!r}")
    out: list[str] = []
    for n in names:
        if not isinstance(n, str) or not n.strip() or n != n.strip():
            raise ParameterError(f"names: {n!r} is not a usable run name "
                                 "(a non-empty string without surrounding spaces)")
        out.append(n)
    if len(set(out)) != len(out):
        raise ParameterError(f"names: repeated run name(s) "
                             f"{', '.join(sorted({n for n in out if out.count(n) > 1}))}")
    return out


def _check_stdin_once(qrels: object, runs: object) -> None:
    """Standard input (``-``) can be read only once."""
    items = [qrels] + (list(runs) if isinstance(runs, (list, tuple)) else [runs])
    if sum(1 for i in items if isinstance(i, PathLike) and os.fspath(i) == "-") > 1:
        raise InputError("'-' (standard input) is given more than once",
                         expected="at most one input read from standard input")


def _read_files(paths: list[str | os.PathLike[str]], *, float32: bool,
                split_tags: bool) -> list[Run | list[Run]]:
    """Parse run files, several at a time: Arrow releases the GIL while parsing, and small
    files leave a core idle (100 files of 500,000 lines: 9.9 s one by one, 5.4 s with
    4 threads). Results, and the first error, come in the order the files were given."""
    def read(path: str | os.PathLike[str]) -> Run | list[Run]:
        return trec.read_run(path, float32=float32, split_tags=split_tags)

    return map_threads(read, paths, 4)


def _resolve_names(runs: list[Run], from_file: list[bool]) -> None:
    names = [r.name for r in runs]
    if len(set(names)) == len(names):
        return
    for i, run in enumerate(runs):
        if from_file[i] and run.source:
            runs[i] = run.renamed(trec.run_name_from_path(run.source))
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise CampaignError("run names collide even after naming runs by file name: "
                            f"{', '.join(dupes)}; pass names explicitly (names=... / --names)")


def load_campaign(qrels: object, runs: object, *, names: Sequence[str] | None = None,
                  max_docs: int | None = None,
                  float32: bool = False, dedupe: bool = False, split_tags: bool = False,
                  warn_dropped: bool = True, subtopic_qrels: Any = None) -> Campaign:
    """Read qrels and runs and build the :class:`~irmeta.data.campaign.Campaign`.

    Parameters
    ----------
    qrels : path, DataFrame, dict or Qrels
        The judgments (or ``"irds:<id>"``, a ranx ``Qrels``, ``qrels_iter()`` rows;
        ``docs/ecosystem.md``).
    runs : path, DataFrame, dict, Run, or a list of those
        The runs (a dict ``{name: {topic: {doc: score}}}`` gives named runs; PyTerrier
        frames, ranx ``Run``s, ``ScoredDoc`` rows and ``"irds:<id>"`` scoreddocs too).
    names : sequence of str, optional
        One name per run, overriding tags.
    max_docs : int, optional
        Keep the top ``max_docs`` documents per topic.
    subtopic_qrels : path, DataFrame or SubtopicQrels, optional
        Diversity judgments (``topic subtopic docid grade``) for the diversity measures
        (``alpha_nDCG@k``, ``ERR_IA@k`` ...; ``docs/diversity.md``). With them ``qrels``
        may be None: the ad hoc qrels are then derived from them (each document's highest
        grade over its subtopics).

    Returns
    -------
    Campaign

    Examples
    --------
    >>> import irmeta
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}}
    >>> runs = {"A": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 1.0}},
    ...         "B": {"q1": {"d2": 3.0, "d3": 2.0}, "q2": {"d5": 1.0}}}
    >>> campaign = irmeta.load_campaign(qrels, runs)
    >>> campaign.runs, campaign.topics
    (('A', 'B'), ('q1', 'q2'))

    From files (the demo campaign's qrels and three of its runs):

    >>> from irmeta.demo import demo_paths
    >>> paths = demo_paths()
    >>> irmeta.load_campaign(paths.qrels, paths.runs[:3]).num_runs
    3
    """
    from irmeta import validate
    fn = "load_campaign"
    if isinstance(runs, Campaign):
        raise ParameterError(f"{fn}: runs is already a built Campaign; use it directly")
    if max_docs is not None:
        max_docs = validate.integer(max_docs, "max_docs", fn, low=1)
    float32 = validate.flag(float32, "float32", fn)
    dedupe = validate.flag(dedupe, "dedupe", fn)
    split_tags = validate.flag(split_tags, "split_tags", fn)
    _check_stdin_once(qrels, runs)
    subtopics = None
    if subtopic_qrels is not None:
        from irmeta.io.subtopics import load_subtopic_qrels
        subtopics = load_subtopic_qrels(subtopic_qrels)
    if qrels is None and subtopics is None:
        raise ParameterError(f"{fn}: qrels is required (or subtopic_qrels to derive them from)")
    q = load_qrels(qrels) if qrels is not None else subtopics.to_qrels()  # type: ignore[union-attr]
    rs = load_runs(runs, names, float32=float32, split_tags=split_tags)
    campaign = build_campaign(q, rs, max_docs=max_docs, dedupe=dedupe,
                              warn_dropped=warn_dropped)
    if subtopics is not None:
        from irmeta.data.subtopics import subtopic_table
        campaign.subtopics = subtopic_table(subtopics, campaign.topics)
    return campaign


def read_groups(path: str | os.PathLike[str], runs: Sequence[str] | None = None) -> dict[str, str]:
    """Read a groups file: one ``run group`` pair per line (``#`` comments allowed), as
    ``{run: group}`` in file order: the CLI's ``--groups FILE``.

    With ``runs``, every run of the campaign must have a group; names of the file that
    are not in ``runs`` are ignored. Every function that takes ``groups=``
    (:func:`irmeta.evaluate`, :func:`irmeta.compare`, :func:`irmeta.pool`,
    :func:`irmeta.report.campaign_report`, the meta functions) also takes the file's
    path and reads it this way.

    Examples
    --------
    >>> import irmeta
    >>> from irmeta.demo import demo_paths
    >>> groups = irmeta.read_groups(demo_paths().groups)
    >>> len(groups), groups["expD-doc2query"]
    (30, 'expD')
    """
    raw = trec.read_bytes(path)
    groups: dict[str, str] = {}
    for lineno, line in enumerate(unify_line_ends(raw).split(b"\n"), 1):
        fields = [decode_id(f) for f in line.split()]
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 2:
            raise InputError(f"{len(fields)} fields", path=str(path), line=lineno,
                             expected="2 fields: run group")
        if fields[0] in groups and groups[fields[0]] != fields[1]:
            raise InputError(f"run {fields[0]!r} is given two groups", path=str(path),
                             line=lineno, expected="one group per run")
        groups[fields[0]] = fields[1]
    if runs is not None:
        missing = [r for r in runs if r not in groups]
        if missing:
            raise CampaignError(f"{path}: no group for run(s) {', '.join(missing[:10])}"
                                f"{' ...' if len(missing) > 10 else ''}",)
        groups = {r: groups[r] for r in runs}
    return groups
