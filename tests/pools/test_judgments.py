"""Leave-one-group-out, reproducibility (repro_eval oracle), qrels agreement (sklearn)."""

from __future__ import annotations

import gzip
import shutil
import warnings

import numpy as np
import pytest

import irmeta
from irmeta.demo import demo_paths
from irmeta.errors import CampaignError, ParameterError
from irmeta.io.load import read_groups
from irmeta.stats import cohen_kappa, qrels_agreement, reproducibility, reusability


@pytest.fixture(scope="module")
def demo():
    paths = demo_paths()
    c = irmeta.load_campaign(paths.qrels, paths.runs)
    return paths, c, read_groups(paths.groups, c.runs)


# ---------------------------------------------------------------- reusability
def test_score_without_equals_eval_on_the_written_qrels(demo, tmp_path):
    paths, c, groups = demo
    res = reusability(c, ["AP", "nDCG@10"], groups, depth=20)
    written = res.write_qrels(tmp_path)
    assert len(written) == len(set(groups.values()))
    removed_any = False
    for path in written:
        group = path.stem
        members = [r for r in c.runs if groups[r] == group]
        ev = irmeta.evaluate(str(path), [str(p) for p in paths.runs], ["AP", "nDCG@10"])
        idx = [ev.runs.index(r) for r in members]
        rows = res.table[res.table["group"] == group]
        for j, m in enumerate(["AP", "nDCG@10"]):
            got = rows[rows["measure"] == m].set_index("run")["score_without"]
            np.testing.assert_array_equal(got[members].to_numpy(), ev.means[idx, j])
        removed_any |= len(res.removed[group]) > 0
        assert len(irmeta.load_qrels(str(path))) == len(c.judged.grades) - len(res.removed[group])
    assert removed_any  # some group found documents nobody else did (the test can fail)


def test_unique_documents_against_a_plain_reference(demo):
    _, c, groups = demo
    depth = 15
    res = reusability(c, ["P@10"], groups, depth=depth, rare=None)
    found: dict[tuple, set] = {}
    for r, run in enumerate(c.runs):
        for t in range(c.num_topics):
            for d in c.ranking(r, t)[:depth]:
                found.setdefault((c.topics[t], d), set()).add(groups[run])
    q = irmeta.stats.qrels_of(c)
    from irmeta.data.tables import decode_ids
    docs = decode_ids(q.docids)
    topics = q.topic_ids[q.topic_codes]
    for group, frame in res.removed.items():
        expect = {(str(t), d) for t, d in zip(topics, docs) if found.get((str(t), d)) == {group}}
        assert set(zip(frame["topic"], frame["docid"])) == expect


def test_ranks_and_rank_without(demo):
    _, c, groups = demo
    res = reusability(c, ["AP"], groups, depth=10, rare=None)
    t = res.table
    for _, row in t.iterrows():
        others = t[t["run"] != row["run"]]["score"]
        assert row["rank_without"] == 1 + int((others > row["score_without"]).sum())
        assert row["rank"] == 1 + int((others > row["score"]).sum())


def test_leave_one_run_out_and_refusals(demo):
    _, c, groups = demo
    res = reusability(c, ["AP"], None, depth=10, leave_out="run", rare=None)
    assert list(res.groups["run"]) == list(c.runs)
    with pytest.raises(ParameterError, match="context"):
        reusability(c, ["P_rare(alpha=0.5)@10"], groups)
    with pytest.raises(CampaignError, match="no group for run"):
        reusability(c, ["AP"], {c.runs[0]: "g"})
    with pytest.raises(CampaignError, match="not in the campaign"):
        reusability(c, ["AP"], {**groups, "ghost": "g"})


def test_cli_reusability_bad_groups_is_located(demo, tmp_path):
    from irmeta.cli.main import main
    paths, c, groups = demo
    f = tmp_path / "groups"
    f.write_text("".join(f"{r} {g}\n" for r, g in groups.items()) + "ghost x\n")
    code = main(["meta", "reusability", str(paths.qrels), *map(str, paths.runs), "-m", "AP",
                 "--groups", str(f)])
    assert code == 2


# ------------------------------------------------------------ reproducibility
def _plain(path, tmp_path):
    out = tmp_path / path.name.replace(".gz", "")
    with gzip.open(path, "rb") as fi, open(out, "wb") as fo:
        shutil.copyfileobj(fi, fo)
    return str(out)


def test_reproducibility_equals_repro_eval(dl21, tmp_path):
    pytest.importorskip("repro_eval")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from repro_eval.measure.document_order import KTU, RBO
        from repro_eval.measure.effectiveness import RMSE
        from repro_eval.measure.overall_effects import DRI, ER
        from repro_eval.measure.statistics import ttest
        from repro_eval.util import break_ties, load_run, trim_run
    qrels, files = dl21
    a, a2, b, b2 = (_plain(files[i], tmp_path) for i in (0, 1, 3, 4))
    res = reproducibility(str(qrels), a, a2, ["AP", "nDCG@10", "P@10"],
                          baseline_orig=b, baseline_repro=b2)
    names = {"AP": "AP", "nDCG@10": "nDCG@10", "P@10": "P@10"}

    def scores(path):
        # repro_eval's rankings; the per-topic scores are irmeta's (trec_eval's):
        # pytrec_eval (which repro_eval calls through ir_measures) orders tied scores
        # differently from trec_eval, so its AP differs on 8 of the 53 DL21 topics
        run = break_ties(load_run(path))
        trim_run(run, 1000)
        ev = irmeta.evaluate(irmeta.load_campaign(str(qrels), path, warn_dropped=False),
                             measures=list(names))
        out = {t: {names[m]: float(ev.matrix(m).loc[ev.runs[0], t]) for m in names}
               for t in ev.matrix("AP").columns}
        return run, out

    (ra, sa), (ra2, sa2), (rb, sb), (rb2, sb2) = (scores(x) for x in (a, a2, b, b2))
    top = res.topics[res.topics["pair"] == "run"].set_index("topic")
    ktu = KTU(ra, ra2, per_topic=True)
    rbo = RBO(ra, ra2, p=0.95, depth=1000, pbar=False, per_topic=True)
    assert set(ktu) == set(top.index)
    for t in ktu:
        assert top.loc[t, "ktu"] == pytest.approx(ktu[t], abs=1e-12)
        assert top.loc[t, "rbo"] == pytest.approx(rbo[t], abs=1e-12)
    mrow = res.measures[res.measures["pair"] == "run"].set_index("measure")
    rmse, p_rel = RMSE(sa, sa2), ttest(sa, sa2, rpd=True)
    p_ind = ttest(sa, sa2, rpd=False)
    kw = {"orig_score_a": sa, "orig_score_b": sb, "rep_score_a": sa2, "rep_score_b": sb2}
    er, dri = ER(**kw), DRI(**kw)
    eff = res.effects.set_index("measure")
    for m, name in names.items():
        assert mrow.loc[m, "rmse"] == pytest.approx(rmse[name], rel=1e-12)
        assert mrow.loc[m, "p_paired"] == pytest.approx(p_rel[name], rel=1e-9)
        assert mrow.loc[m, "p_unpaired"] == pytest.approx(p_ind[name], rel=1e-9)
        assert eff.loc[m, "effect_ratio"] == pytest.approx(er[name], rel=1e-12)
        assert eff.loc[m, "delta_ri"] == pytest.approx(dri[name], rel=1e-9, abs=1e-14)


def test_identical_runs_agree_fully():
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    run = {"q1": {"d1": 2.0, "d2": 1.0, "d4": 0.5}, "q2": {"d3": 1.0, "d5": 0.2}}
    res = reproducibility(qrels, run, run, ["AP"], depth=2)
    assert (res.topics["ktu"] == 1.0).all() and np.allclose(res.topics["rbo"], 1.0)
    # repro_eval's RBO is not normalised for rankings shorter than the depth: identical
    # rankings of 3 and 2 documents score below 1 at depth 1000 (docs/pooling.md)
    deep = reproducibility(qrels, run, run, ["AP"])
    assert (deep.topics["rbo"] < 0.5).all()
    assert res.measures["rmse"][0] == 0.0 and res.measures["p_paired"][0] == 1.0


def test_constant_scores_give_pvalues_without_a_warning():
    """An original run scoring 1 on every topic: SciPy's t-tests warned of precision loss
    (a Python warning on the CLI's stderr) although their p-values are exact."""
    from scipy.stats import ttest_ind
    qrels = {"q1": {"d1": 1}, "q2": {"d3": 1}, "q3": {"d5": 1}}
    orig = {"q1": {"d1": 2.0}, "q2": {"d3": 1.0}, "q3": {"d5": 1.0}}
    repro = {"q1": {"d1": 2.0}, "q2": {"d4": 1.0}, "q3": {"d6": 1.0}}
    res = reproducibility(qrels, orig, repro, ["P@1"])
    with pytest.warns(RuntimeWarning):
        want = ttest_ind([1.0, 1.0, 1.0], [1.0, 0.0, 0.0]).pvalue
    assert res.measures["p_unpaired"][0] == pytest.approx(want, rel=1e-12)


def test_reproduced_run_missing_topics_is_noted():
    """A reproduced run without some evaluated topics scores 0 on them (trec_eval -c);
    that moved RMSE and the t-tests silently. Now a warning (a CLI note) says so."""
    qrels = {"q1": {"d1": 1}, "q2": {"d3": 1}, "q3": {"d5": 1}}
    orig = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}, "q3": {"d5": 1.0}}
    repro = {"q1": {"d1": 2.0, "d2": 1.0}}
    with pytest.warns(UserWarning, match="reproduced run retrieves nothing for 2 of the 3"):
        res = reproducibility(qrels, orig, repro, ["AP"])
    assert res.measures["rmse"][0] == pytest.approx(np.sqrt(2 / 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reproducibility(qrels, orig, orig, ["AP"])


# ------------------------------------------------------------------ agreement
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_equals_sklearn(weights):
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(7)
    for _ in range(20):
        a = rng.integers(0, 4, 50)
        b = np.clip(a + rng.integers(-1, 2, 50), 0, 3)
        assert cohen_kappa(a, b, weights) == pytest.approx(
            sklearn_metrics.cohen_kappa_score(a, b, weights=weights), abs=1e-12)


def test_qrels_agreement_on_dl21_against_sklearn(dl21, tmp_path):
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    qrels, files = dl21
    # a second assessor: every grade-1 judgment of odd line number demoted to 0
    lines = qrels.read_text().splitlines()
    other = tmp_path / "b.qrels"
    other.write_text("".join(
        (f"{ln.rsplit(' ', 1)[0]} 0\n" if i % 2 and ln.endswith(" 1") else ln + "\n")
        for i, ln in enumerate(lines)))
    res = qrels_agreement(str(qrels), str(other), [str(f) for f in files[:8]], ["AP"],
                          rel_level=1)
    from irmeta.stats.agreement import shared_judgments
    pairs = shared_judgments(irmeta.load_qrels(str(qrels)), irmeta.load_qrels(str(other)))
    allrow = res.kappa.set_index("topic").loc["all"]
    a, b = pairs["grade_a"].to_numpy(), pairs["grade_b"].to_numpy()
    assert allrow["shared"] == len(lines)
    assert allrow["kappa"] == pytest.approx(sklearn_metrics.cohen_kappa_score(a >= 1, b >= 1))
    assert allrow["kappa_weighted"] == pytest.approx(
        sklearn_metrics.cohen_kappa_score(a, b, weights="linear"))
    assert allrow["kappa"] < 1.0
    assert int(res.confusion.to_numpy().sum()) == len(lines)
    s = res.summary.iloc[0]
    assert -1.0 <= s["kendall_tau"] <= 1.0 and 0.0 <= s["top_k_overlap"] <= 1.0


# ---------------------------------------------------------------------- shards
def test_pool_and_reusability_on_shards_equal_in_memory(demo):
    from irmeta.pooling import pool
    paths, c, groups = demo
    files = [str(p) for p in paths.runs]
    want_pool = {s: pool(c, 15, strategy=s, groups=groups)
                 for s in ("depth", "group_depth", "rrf", "rbp_max")}
    want = reusability(c, ["AP", "nDCG@10"], groups, depth=15)
    with irmeta.open_shards(str(paths.qrels), files, shard_topics=7) as sharded:
        assert len(sharded.shards) > 1
        for s, expect in want_pool.items():
            got = pool(sharded, 15, strategy=s, groups=groups)
            assert got.table.equals(expect.table), s
            assert got.stats.equals(expect.stats), s
            assert got.contributors().equals(expect.contributors()), s
        res = reusability(sharded, ["AP", "nDCG@10"], groups, depth=15)
    assert res.table.equals(want.table)          # bit for bit
    assert res.summary.equals(want.summary) and res.groups.equals(want.groups)
    for g in want.removed:
        a, b = res.reduced_qrels(g), want.reduced_qrels(g)
        assert len(a) == len(b)


def test_qrels_agreement_on_shards_equals_in_memory(demo, tmp_path):
    paths, c, _ = demo
    lines = paths.qrels.read_text().splitlines()
    other = tmp_path / "b.qrels"
    other.write_text("".join((f"{ln.rsplit(' ', 1)[0]} 0\n" if i % 3 == 0 else ln + "\n")
                             for i, ln in enumerate(lines)))
    files = [str(p) for p in paths.runs]
    want = qrels_agreement(str(paths.qrels), str(other), files, ["AP", "nDCG@10"])
    with irmeta.open_shards(str(paths.qrels), files, shard_topics=7) as sharded:
        got = qrels_agreement(str(paths.qrels), str(other), sharded, ["AP", "nDCG@10"])
    assert got.scores.equals(want.scores) and got.summary.equals(want.summary)
    assert got.kappa.equals(want.kappa)
    assert (want.scores["score_a"] != want.scores["score_b"]).any()


# ------------------------------------------------------------------------- CLI
def _cli(args, tmp_path, name):
    from irmeta.cli.main import main
    out = tmp_path / name
    assert main([*args, "-o", str(out)]) == 0
    return out.read_text()


def test_cli_reusability_tsv_and_shards(demo, tmp_path):
    paths, c, groups = demo
    gfile = tmp_path / "groups"
    gfile.write_text("".join(f"{r} {g}\n" for r, g in groups.items()))
    base = ["meta", "reusability", str(paths.qrels), *map(str, paths.runs), "-m", "AP",
            "-m", "nDCG@10", "--groups", str(gfile), "--depth", "15", "--format", "tsv",
            "--part", "table"]
    text = _cli(base, tmp_path, "a.tsv")
    assert text.splitlines()[0].split("\t") == ["group", "run", "measure", "score",
                                                "score_without", "rank", "rank_without"]
    assert len(text.splitlines()) == 1 + 2 * len(c.runs)
    assert _cli([*base, "--shard-topics", "7"], tmp_path, "b.tsv") == text


def test_cli_reproducibility_and_agreement(demo, tmp_path):
    paths, _, _ = demo
    runs = [str(p) for p in paths.runs]
    text = _cli(["meta", "reproducibility", str(paths.qrels), runs[0], runs[1], "-m", "AP",
                 "--baseline-orig", runs[2], "--baseline-repro", runs[3], "--format", "tsv"],
                tmp_path, "r.tsv")
    for title in ("# measures", "# summary", "# effects", "# topics"):
        assert title in text
    from irmeta.cli.main import main
    assert main(["meta", "reproducibility", str(paths.qrels), runs[0], runs[1], "-m", "AP",
                 "--baseline-orig", runs[2]]) == 2
    text = _cli(["meta", "qrels-agreement", str(paths.qrels), str(paths.qrels), *runs,
                 "-m", "AP", "--part", "summary", "--format", "tsv"], tmp_path, "q.tsv")
    row = text.splitlines()[1].split("\t")
    assert row[:4] == ["AP", "1.0", "1.0", "1.0"]        # a qrels agrees with itself



def test_qrels_agreement_refuses_qrels_sharing_no_topic(tmp_path, capsys):
    """Two qrels of disjoint topics used to print kappa NaN, every score under B 0,
    tau_AP 0 and a top-k overlap of 1: numbers of nothing. Refused, naming both files."""
    qa, qb = tmp_path / "a.qrels", tmp_path / "b.qrels"
    qa.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    qb.write_text("q2 0 d1 1\nq2 0 d3 0\n")
    runs = {"X": {"q1": {"d1": 2.0, "d2": 1.0}}, "Y": {"q1": {"d2": 2.0, "d1": 1.0}}}
    with pytest.raises(irmeta.InputError, match=r"b\.qrels judges none of the 1 topics"):
        qrels_agreement(str(qa), str(qb), runs, ["AP"])
    run = tmp_path / "x.run"
    run.write_text("q1 Q0 d1 1 2.0 X\nq1 Q0 d2 2 1.0 X\n")
    from irmeta.cli.main import main
    assert main(["meta", "qrels-agreement", str(qa), str(qb), str(run), "-m", "AP"]) == 2
    assert "judges none of the 1 topics of" in capsys.readouterr().err

# ---------------------------------------------------------------------- report
def test_report_trust_section_has_the_reusability_part(demo):
    from irmeta.report import ReportOptions
    from irmeta.report.analysis import analyse_campaign
    from irmeta.report.render import trust
    _, c, groups = demo
    opts = ReportOptions(discpower_trials=50, stability_trials=20, background=0)
    a = analyse_campaign(c, opts, groups=groups)
    part = a.trust.reusability
    want = reusability(c, [part.measure], groups, depth=opts.rare_cutoff)
    got = part.scores.set_index("run")["score_without"]
    np.testing.assert_array_equal(got[list(c.runs)].to_numpy(),
                                  want.table.set_index("run")["score_without"][list(c.runs)])
    assert part.groups["unique relevant"].sum() == want.groups["unique_relevant"].sum() > 0
    names = [getattr(b, "name", "") for b in trust(a.trust).blocks]
    assert "trust_reusability" in names and "trust_reusability_groups" in names
    # the per-run drill-down names the relevant documents only the run's group found
    unique = want.groups.set_index("group")["unique_relevant"]
    assert a.per_topic.group_unique == {r: int(unique[groups[r]]) for r in c.runs}
    from irmeta.report.render import per_topic_blocks, run_anchor
    blocks = per_topic_blocks(a.per_topic, run_anchor(list(c.runs)), a.leaderboard)
    notes = {b.run: b.note for b in blocks if getattr(b, "kind", "") == "details"}
    run = c.runs[0]
    assert notes[run].startswith(f"{unique[groups[run]]} relevant document")
    plain = analyse_campaign(c, opts)
    assert plain.trust.reusability is None and plain.per_topic.group_unique is None


def test_one_topic_shards_where_a_group_retrieved_nothing(tmp_path):
    """A shard of one topic where a group's runs retrieved nothing (or no run did) is no
    error there: the pieces are per topic and joined before anything is aggregated, so
    one-topic shards give the in-memory table bit for bit (the report's analysis failed
    with 'no run shares a topic with the qrels')."""
    qrels = tmp_path / "qrels"
    qrels.write_text("t1 0 a 1\nt1 0 b 1\nt2 0 c 1\nt2 0 d 0\nt3 0 e 1\nt4 0 f 1\n")
    runs = {"A": "t1 Q0 a 1 3 A\nt1 Q0 x 2 2 A\nt2 Q0 c 1 3 A\nt3 Q0 e 1 1 A\n",
            "B": "t1 Q0 b 1 3 B\nt2 Q0 d 1 3 B\nt2 Q0 c 2 2 B\n",
            "C": "t1 Q0 a 1 3 C\nt1 Q0 b 2 2 C\n"}
    files = []
    for name, text in runs.items():
        (tmp_path / name).write_text(text)
        files.append(str(tmp_path / name))
    groups = {"A": "gA", "B": "gB", "C": "gC"}
    want = reusability(irmeta.load_campaign(str(qrels), files), ["AP", "P@2"], groups,
                       depth=2)
    with irmeta.open_shards(str(qrels), files, shard_topics=1) as sharded:
        got = reusability(sharded, ["AP", "P@2"], groups, depth=2)
    assert got.table.equals(want.table) and got.summary.equals(want.summary)
    assert (want.table["score"] != want.table["score_without"]).any()
    other = tmp_path / "other"
    other.write_text("t1 0 a 0\nt1 0 b 1\nt2 0 c 1\nt2 0 d 1\nt3 0 e 1\nt4 0 f 1\n")
    agree = qrels_agreement(str(qrels), str(other), files, ["AP", "P@2"])
    with irmeta.open_shards(str(qrels), files, shard_topics=1) as sharded:
        got_agree = qrels_agreement(str(qrels), str(other), sharded, ["AP", "P@2"])
    assert got_agree.scores.equals(agree.scores) and got_agree.summary.equals(agree.summary)
