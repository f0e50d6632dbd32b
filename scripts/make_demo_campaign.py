#!/usr/bin/env python
"""Generate irmeta's SIMULATED demo campaign (src/irmeta/demo/data/).

    python scripts/make_demo_campaign.py            # rewrite the shipped files
    python scripts/make_demo_campaign.py -o DIR     # write elsewhere (the tests do this)

Everything is drawn from ``numpy.random.default_rng(SEED)`` in a fixed order and written
with fixed formatting; gzip members are written with ``mtime=0`` and no file name, so a
rerun gives byte-identical files. Nothing here is real data.

The model (one pass per topic; see docs/demo-campaign.md for the reasoning):

* Each topic has a universe of ``N_DOCS`` candidate documents. ``R_t`` of them are truly
  relevant (log-normal, two topics forced to 2 and 3), with grades 1/2/3 drawn with
  probabilities 0.5/0.3/0.2. A topic difficulty ``c_t`` scales how well the shared
  signals separate relevant from non-relevant documents.
* Two shared signals every system sees: ``L`` (lexical) and ``S`` (semantic), both
  ``0.8 * topical + 0.6 * noise`` where ``topical = noise + c_t * signal(grade)``. Shared
  signals make the runs of different groups retrieve a common candidate pool. A few
  non-relevant "keyword distractors" get a boost in ``L``.
* About 18 % of the relevant documents are *hidden* (vocabulary mismatch: ``L`` and ``S``
  pushed down). Each hidden document belongs to one of ``N_SOURCES`` special signals
  ``H_k`` (entity linking, a knowledge graph, ...); the rare-document specialists put
  weight on their own ``H_k``, so they find relevant documents nobody else finds. The
  last source is used only weakly, so many of its documents are never found or judged.
* A run's score is ``q * (wL*L + wS*S) + sum_k wH_k*H_k + sg*G_group + sr*E_run`` with
  ``q = exp(N(0, 0.25))`` per (run, topic); ``G_group`` is noise shared by every run of
  a group (variants of one system are correlated), ``E_run`` the run's own noise.
* Modes: ``plain`` (top 100 by score); ``precision`` (the top ``cut`` by a strong
  scorer, then filler documents from outside the candidate pool: good early precision,
  poor recall); ``recall`` (the top 100 of a broad scorer, re-ordered by a noisy one:
  good recall, poor early precision); ``fusion`` (reciprocal rank fusion of earlier runs).
* Scores are rounded to a per-run number of decimals (coarse runs get ties); each ranking
  is written in trec_eval order (score descending, docid descending).
* Judgments: depth-``POOL_DEPTH`` pooling over every run, like TREC; pooled documents get
  their true grade (0-3). Documents deeper than the pool and not pooled by another run
  stay unjudged.
"""

from __future__ import annotations

import argparse
import gzip
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SEED = 20240521
N_TOPICS = 50
FIRST_TOPIC = 301
N_DOCS = 1000            # candidate universe per topic (ids: one block of 1000)
DEPTH = 100              # documents per topic per run
POOL_DEPTH = 20          # judging depth (TREC-style pooling over every run)
N_SOURCES = 5            # special signals H_k; the last one belongs to no system
HIDDEN_SHARE = 0.18      # share of relevant documents hidden from L and S
FEW_REL_TOPICS = {"318": 2, "337": 3}   # topics with very few relevant documents
COLLECTION_BLOCKS = 2000                # docids D0000000-D1999999, one block of 1000 per topic

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src" / "irmeta" / "demo" / "data"


@dataclass(frozen=True)
class RunSpec:
    """One simulated system (see the module docstring for the score model)."""

    name: str
    wL: float = 1.0
    wS: float = 0.0
    wT: float = 0.0       # weight of the clean topical signal (strong rerankers)
    wH: dict = field(default_factory=dict)   # source index -> weight
    sg: float = 0.5       # weight of the group's shared noise
    sr: float = 0.5       # weight of the run's own noise
    mode: str = "plain"   # plain | precision | recall | fusion
    cut: int = 20         # precision mode: reranked head length
    reorder_noise: float = 2.0   # recall mode: noise of the re-ordering scorer
    sources: tuple = ()   # fusion mode: names of the fused runs
    offset: float = 10.0  # printed score = offset + scale * raw score
    scale: float = 2.0
    decimals: int = 3

    @property
    def group(self) -> str:
        return self.name.split("-", 1)[0]


RUNS: tuple[RunSpec, ...] = (
    # lexA: a classic lexical group; the "coarse" variant prints integer scores (ties).
    RunSpec("lexA-bm25", wL=1.0, sg=0.6, sr=0.45),
    RunSpec("lexA-bm25rm3", wL=1.05, wS=0.15, sg=0.6, sr=0.45),
    RunSpec("lexA-ql", wL=0.95, sg=0.6, sr=0.55, offset=-8.0, scale=0.7),
    RunSpec("lexA-bm25coarse", wL=1.0, sg=0.6, sr=0.45, scale=1.0, decimals=0),
    # neuB: dense retrieval; scores look like cosine similarities.
    RunSpec("neuB-dense", wL=0.2, wS=1.1, sg=0.5, sr=0.4, offset=0.6, scale=0.05, decimals=4),
    RunSpec("neuB-denseft", wL=0.2, wS=1.25, sg=0.5, sr=0.35, offset=0.6, scale=0.05, decimals=4),
    RunSpec("neuB-hybrid", wL=0.7, wS=0.9, sg=0.5, sr=0.35, offset=0.6, scale=0.05, decimals=4),
    RunSpec("neuB-densesmall", wL=0.1, wS=0.8, sg=0.5, sr=0.6, offset=0.6, scale=0.05, decimals=4),
    # rrkC: rerankers over a shallow candidate set: strong heads, poor recall.
    RunSpec("rrkC-monot5top20", wL=0.5, wS=0.5, wT=1.5, sg=0.3, sr=0.25, mode="precision", cut=20),
    RunSpec("rrkC-monot5top40", wL=0.5, wS=0.5, wT=1.5, sg=0.3, sr=0.25, mode="precision", cut=40),
    RunSpec("rrkC-bert", wL=0.9, wS=1.2, sg=0.3, sr=0.4),
    RunSpec("rrkC-ensemble", wL=1.0, wS=1.3, sg=0.3, sr=0.3),
    # expD: query expansion; the wide variant has recall but a noisy head.
    RunSpec("expD-prfwide", wL=0.8, wS=0.8, wT=0.8, wH={3: 0.5, 4: 0.5}, sg=0.4, sr=0.3,
            mode="recall", reorder_noise=2.2),
    RunSpec("expD-prf", wL=1.0, wS=0.5, sg=0.4, sr=0.5),
    RunSpec("expD-doc2query", wL=1.0, wS=0.4, wH={3: 0.9}, sg=0.4, sr=0.5),
    # specE: entity-oriented specialists, each with its own rare documents.
    RunSpec("specE-entity", wL=0.7, wS=0.2, wH={0: 1.0}, sg=0.7, sr=0.6),
    RunSpec("specE-kg", wL=0.6, wS=0.3, wH={1: 1.0}, sg=0.7, sr=0.6),
    RunSpec("specE-entitykg", wL=0.65, wS=0.25, wH={0: 0.45, 1: 0.45}, sg=0.7, sr=0.6),
    # fedF: fusion of other groups' runs: strong, but finds nothing new.
    RunSpec("fedF-rrf3", mode="fusion", sources=("lexA-bm25", "neuB-dense", "rrkC-bert"),
            offset=0.0, scale=1.0, decimals=5),
    RunSpec("fedF-rrfall", mode="fusion",
            sources=("lexA-bm25rm3", "neuB-denseft", "neuB-hybrid", "rrkC-ensemble",
                     "expD-prf", "specE-entity"), offset=0.0, scale=1.0, decimals=5),
    RunSpec("fedF-combsum", wL=0.9, wS=0.9, sg=0.35, sr=0.35),
    # uniG: weak baselines (tf-idf, boolean with heavy ties) and a middling LM.
    RunSpec("uniG-tfidf", wL=0.55, sg=1.0, sr=0.9, scale=1.5, decimals=2),
    RunSpec("uniG-boolean", wL=0.45, sg=1.0, sr=1.0, offset=3.0, scale=0.5, decimals=0),
    RunSpec("uniG-lm", wL=0.8, sg=1.0, sr=0.6, offset=-7.0, scale=0.6),
    # xplH: exploratory group: learned sparse, late interaction, a rare-document specialist.
    RunSpec("xplH-splade", wL=0.8, wS=0.9, sg=0.45, sr=0.4, offset=20.0, scale=3.0),
    RunSpec("xplH-colbert", wL=0.5, wS=1.1, sg=0.45, sr=0.4, offset=20.0, scale=3.0),
    RunSpec("xplH-rare", wL=0.5, wS=0.4, wH={2: 1.1}, sg=0.45, sr=0.7, offset=20.0, scale=3.0),
    RunSpec("xplH-mix", wL=0.7, wS=0.7, wH={2: 0.5}, sg=0.45, sr=0.5, offset=20.0, scale=3.0),
    # okI: a late-joining group with a middling and a recall-oriented system.
    RunSpec("okI-bm25t5", wL=0.9, wS=0.6, wH={4: 0.6}, sg=0.5, sr=0.5),
    RunSpec("okI-wideprf", wL=0.9, wS=0.9, wT=0.6, wH={2: 0.3, 4: 0.4}, sg=0.5, sr=0.3,
            mode="recall", reorder_noise=1.8),
)

GRADE_SIGNAL = np.array([0.0, 1.5, 2.0, 2.5])
HIDDEN_PENALTY = 3.0


def _topic_model(rng: np.random.Generator, topic: str, block: int) -> dict:
    """Documents of one topic: ids, true grades, shared signals L and S, sources H.

    The candidates of a topic are one block of 1000 consecutive collection ids (as if
    the collection were clustered by subject); this keeps the gzip files small."""
    docids = block * N_DOCS + rng.permutation(N_DOCS)
    n_rel = FEW_REL_TOPICS.get(topic)
    if n_rel is None:
        n_rel = int(np.clip(np.round(rng.lognormal(np.log(40.0), 0.6)), 8, 160))
    grade = np.zeros(N_DOCS, dtype=np.int64)
    rel_idx = rng.choice(N_DOCS, size=n_rel, replace=False)
    grade[rel_idx] = rng.choice([1, 2, 3], size=n_rel, p=[0.5, 0.3, 0.2])
    difficulty = rng.uniform(0.7, 1.7)
    hidden = (grade > 0) & (rng.random(N_DOCS) < HIDDEN_SHARE)
    topical = (rng.standard_normal(N_DOCS) + difficulty * GRADE_SIGNAL[grade]
               - HIDDEN_PENALTY * hidden)
    lex = 0.8 * topical + 0.6 * rng.standard_normal(N_DOCS)
    sem = 0.8 * topical + 0.6 * rng.standard_normal(N_DOCS)
    distractor = (grade == 0) & (rng.random(N_DOCS) < 0.05)
    lex = lex + 1.5 * distractor
    owner = np.where(hidden, rng.integers(0, N_SOURCES, size=N_DOCS), -1)
    special = 0.5 * rng.standard_normal((N_SOURCES, N_DOCS))
    special = special + 4.0 * (owner[None, :] == np.arange(N_SOURCES)[:, None])
    return {"docids": np.array([f"D{d:07d}" for d in docids]), "grade": grade,
            "topical": topical, "lex": lex, "sem": sem, "special": special}


def _trec_order(scores: np.ndarray, docids: np.ndarray) -> np.ndarray:
    """Indices in trec_eval order: score descending, then docid descending."""
    # lexsort sorts by the last key first; docids are fixed-width, so string order holds.
    rank_doc = np.argsort(np.argsort(docids, kind="stable"), kind="stable")
    return np.lexsort((-rank_doc, -scores))


def _rank_run(spec: RunSpec, model: dict, rng: np.random.Generator, group_noise: np.ndarray,
              done: dict) -> tuple[np.ndarray, np.ndarray]:
    """(document indices, printed scores) of one run on one topic, in trec_eval order."""
    own = rng.standard_normal(N_DOCS)
    quality = np.exp(0.25 * rng.standard_normal())
    filler = rng.random(N_DOCS)
    reorder = rng.standard_normal(N_DOCS)
    if spec.mode == "fusion":
        fused = np.zeros(N_DOCS)
        for src in spec.sources:
            idx, _ = done[src]
            fused[idx] += 1.0 / (60.0 + np.arange(1, len(idx) + 1))
        raw = np.where(fused > 0, fused, -np.inf)
        top = np.argsort(-raw, kind="stable")[:DEPTH]
        scores = np.round(fused[top], spec.decimals)
        order = _trec_order(scores, model["docids"][top])
        return top[order], scores[order]
    raw = quality * (spec.wL * model["lex"] + spec.wS * model["sem"]
                     + spec.wT * model["topical"])
    for k, w in spec.wH.items():
        raw = raw + w * model["special"][k]
    raw = raw + spec.sg * group_noise + spec.sr * own
    by_raw = np.argsort(-raw, kind="stable")
    if spec.mode == "plain":
        top, value = by_raw[:DEPTH], raw[by_raw[:DEPTH]]
    elif spec.mode == "precision":
        head = by_raw[:spec.cut]
        # filler: documents outside this run's top 300 (off-topic to the system),
        # scored below the head.
        far = by_raw[300:]
        pick = far[np.argsort(filler[far], kind="stable")[:DEPTH - spec.cut]]
        top = np.concatenate([head, pick])
        tail = raw[head].min() - 0.5 - np.sort(2.0 * np.abs(reorder[pick]))
        value = np.concatenate([raw[head], tail])
    elif spec.mode == "recall":
        top = by_raw[:DEPTH]
        value = 0.35 * raw[top] + spec.reorder_noise * reorder[top]
    else:
        raise ValueError(f"make_demo_campaign: unknown mode {spec.mode!r}")
    scores = np.round(spec.offset + spec.scale * value, spec.decimals)
    order = _trec_order(scores, model["docids"][top])
    return top[order], scores[order]


def _fmt(score: float, decimals: int) -> str:
    text = f"{score:.{decimals}f}"
    return "0" + text[2:] if text.startswith("-0") and float(text) == 0 else text


def generate(out: Path | str = DEFAULT_OUT, seed: int = SEED) -> list[Path]:
    """Write the demo campaign into ``out`` and return the written paths."""
    out = Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    groups = sorted({s.group for s in RUNS})
    lines = {s.name: [] for s in RUNS}
    qrels_lines = []
    topics = [str(FIRST_TOPIC + i) for i in range(N_TOPICS)]
    blocks = rng.choice(COLLECTION_BLOCKS, size=N_TOPICS, replace=False)
    for topic, block in zip(topics, blocks):
        model = _topic_model(rng, topic, int(block))
        gnoise = {g: rng.standard_normal(N_DOCS) for g in groups}
        done: dict = {}
        for spec in RUNS:
            idx, scores = _rank_run(spec, model, rng, gnoise[spec.group], done)
            done[spec.name] = (idx, scores)
            ids = model["docids"][idx]
            lines[spec.name].extend(
                f"{topic} Q0 {d} {r} {_fmt(s, spec.decimals)} {spec.name}\n"
                for r, (d, s) in enumerate(zip(ids, scores), start=1))
        pooled = np.unique(np.concatenate([idx[:POOL_DEPTH] for idx, _ in done.values()]))
        pooled = pooled[np.argsort(model["docids"][pooled], kind="stable")]
        qrels_lines.extend(f"{topic} 0 {model['docids'][d]} {model['grade'][d]}\n"
                           for d in pooled)
    written = []
    for spec in RUNS:
        path = out / "runs" / f"{spec.name}.txt.gz"
        path.write_bytes(gzip.compress("".join(lines[spec.name]).encode("ascii"),
                                       compresslevel=9, mtime=0))
        written.append(path)
    for name, text in (("qrels.txt", "".join(qrels_lines)),
                       ("groups.txt", "".join(f"{s.name} {s.group}\n"
                                              for s in sorted(RUNS, key=lambda s: s.name))),
                       ("README.md", _readme(seed))):
        (out / name).write_text(text, encoding="ascii", newline="\n")
        written.append(out / name)
    return written


def _readme(seed: int) -> str:
    return f"""# irmeta demo campaign (SIMULATED DATA)

Everything in this folder is **simulated**. No document, topic, judgment or run comes
from a real evaluation campaign; the numbers only look like one so that every irmeta
measure has something to show.

* `qrels.txt` - graded judgments (0-3), TREC format `topic 0 docid grade`, made by
  depth-{POOL_DEPTH} pooling over all runs (deeper documents may be unjudged).
* `runs/<run>.txt.gz` - {len(RUNS)} runs, TREC format `topic Q0 docid rank score tag`,
  {DEPTH} documents for each of {N_TOPICS} topics ({FIRST_TOPIC}-{FIRST_TOPIC + N_TOPICS - 1}).
* `groups.txt` - `run group` lines ({len({s.group for s in RUNS})} groups; the group is the
  part of the run name before the first `-`).

Generated by `scripts/make_demo_campaign.py` (seed {seed}, `numpy.random.default_rng`);
rerunning it rewrites these files byte for byte (gzip with mtime 0). The model is
described in that script and in `docs/demo-campaign.md`. From Python:
`irmeta.demo.demo_paths()` and `irmeta.demo.load_demo_campaign()`.
"""


def summary(out: Path | str = DEFAULT_OUT) -> str:
    """Markdown tables describing the campaign in ``out`` (pasted into
    docs/demo-campaign.md): per-run means of AP, P@10, nDCG@10, bpref, R@100, unique
    relevant documents, tied lines; then campaign-level figures."""
    import irmeta

    out = Path(out)
    runs = sorted((out / "runs").glob("*.txt.gz"))
    camp = irmeta.load_campaign(out / "qrels.txt", runs)
    res = irmeta.evaluate(camp, None, ["AP", "P@10", "nDCG@10", "bpref", "R@100"])
    table = res.aggregate()
    groups = dict(line.split() for line in (out / "groups.txt").read_text().splitlines())
    codes, valid = camp.doc_codes, camp.doc_codes >= 0
    rel = camp.grades >= 1
    # how many runs retrieved each (topic, document) in their top 100
    n_runs = np.bincount(codes[valid], minlength=camp.num_codes)
    once = np.zeros(codes.shape, dtype=bool)
    once[valid] = n_runs[codes[valid]] == 1
    table["unique_rel"] = (once & rel).sum(axis=(1, 2))
    table["rel_ret"] = rel.sum(axis=(1, 2))
    # share of a run's lines whose score equals another score of the same topic
    ties = {}
    for path in runs:
        frame = np.loadtxt(gzip.open(path, "rt"), dtype=str, usecols=(0, 4))
        keys = np.char.add(np.char.add(frame[:, 0], " "), frame[:, 1])
        _, inv, cnt = np.unique(keys, return_inverse=True, return_counts=True)
        ties[path.name.removesuffix(".txt.gz")] = float(np.mean(cnt[inv] > 1))
    table["tied_lines"] = [ties[r] for r in table.index]
    table.insert(0, "group", [groups[r] for r in table.index])
    table = table.sort_values("AP", ascending=False)
    lines = ["| run | group | AP | P@10 | nDCG@10 | bpref | R@100 | unique rel. | rel. retrieved"
             " | tied lines |", "|" + " --- |" * 10]
    for name, row in table.iterrows():
        lines.append(f"| {name} | {row.group} | {row.AP:.3f} | {row['P@10']:.3f} | "
                     f"{row['nDCG@10']:.3f} | {row.bpref:.3f} | {row['R@100']:.3f} | "
                     f"{row.unique_rel} | {row.rel_ret} | {row.tied_lines:.1%} |")
    # per-topic AP correlation between runs of the same group and of different groups
    ap = res.matrix("AP").loc[list(table.index)].to_numpy()
    corr = np.corrcoef(ap)
    grp = np.array(table.group)
    same = (grp[:, None] == grp[None, :]) & ~np.eye(len(grp), dtype=bool)
    diff = grp[:, None] != grp[None, :]
    # overlap of the top-100 sets (Jaccard), averaged over topics, per pair of runs
    order = [camp.run_index(r) for r in table.index]
    inter = np.zeros((camp.num_runs, camp.num_runs))
    for t in range(camp.num_topics):
        c = codes[order, t]
        members = np.zeros((len(order), camp.num_codes), dtype=np.float32)
        rows = np.repeat(np.arange(len(order)), c.shape[1])
        keep = c.ravel() >= 0
        members[rows[keep], c.ravel()[keep]] = 1.0
        both = members @ members.T
        sizes = members.sum(axis=1)
        inter += both / (sizes[:, None] + sizes[None, :] - both)
    jac = inter / camp.num_topics
    nrel = camp.num_rel(1)
    judged_grades = camp.judged.grades
    counts = np.bincount(judged_grades.astype(np.int64), minlength=4)
    deep = camp.grades[:, :, POOL_DEPTH:]
    lines += [
        "",
        f"* {camp.num_runs} runs, {len(set(groups.values()))} groups, {camp.num_topics} topics, "
        f"{int(valid.sum())} ranked documents.",
        f"* {len(judged_grades)} judgments (grade 0/1/2/3: {counts[0]}/{counts[1]}/{counts[2]}/"
        f"{counts[3]}); relevant documents per topic: min {nrel.min()}, median "
        f"{int(np.median(nrel))}, max {nrel.max()}.",
        f"* Unjudged share of ranks {POOL_DEPTH + 1}-{DEPTH}: "
        f"{np.mean(deep == -32768):.1%} (ranks 1-{POOL_DEPTH}: 0%).",
        f"* Retrieved (topic, document) pairs found by 10 or more runs: "
        f"{np.mean(n_runs[n_runs > 0] >= 10):.1%} of the distinct pairs, "
        f"{np.mean(n_runs[codes[valid]] >= 10):.1%} of the ranked lines; "
        f"found by one run only: {np.mean(n_runs[n_runs > 0] == 1):.1%} of the pairs.",
        f"* Relevant documents found (top 100) by exactly one run: "
        f"{int(table.unique_rel.sum())} in all; runs with at least one: "
        f"{int((table.unique_rel > 0).sum())}.",
        f"* Pearson correlation of per-topic AP between two runs: same group "
        f"{corr[same].mean():.3f}, different groups {corr[diff].mean():.3f} (mean over pairs).",
        f"* Overlap of two runs' top-100 sets (Jaccard, mean over topics and pairs): same "
        f"group {jac[same].mean():.3f}, different groups {jac[diff].mean():.3f}.",
        f"* MAP from {table.AP.min():.3f} to {table.AP.max():.3f}.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--out", type=Path, default=DEFAULT_OUT,
                        help=f"output folder (default: {DEFAULT_OUT})")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--summary", action="store_true",
                        help="also print the Markdown tables of docs/demo-campaign.md")
    args = parser.parse_args()
    for path in generate(args.out, args.seed):
        print(path)
    if args.summary:
        print(summary(args.out))


if __name__ == "__main__":
    main()
