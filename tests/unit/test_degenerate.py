"""Degenerate but valid campaigns x subcommands (issue 11, class 7) and absurd depths.

Every command ends with exit status 0 (and the right numbers, NaN where undefined) or 2
(a one-line irmeta error) — never 1, the status of a bug. Campaigns are written to
tmp_path: qrels ``topic 0 doc grade``, runs ``topic Q0 doc rank score tag``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from irmeta.cli.main import main

DOCS = [f"d{i}" for i in range(10)]
ORDERS = {"a": list(range(10)), "b": list(range(9, -1, -1)), "c": [1, 3, 5, 7, 9, 0, 2, 4, 6, 8]}


def _write(folder, topics_q, topics_r, grade=lambda i: int(i % 3 == 0), runs="abc",
           same_run=False):
    folder.mkdir()
    (folder / "qrels").write_text("".join(f"{t} 0 {d} {grade(i)}\n" for t in topics_q
                                          for i, d in enumerate(DOCS)))
    paths = []
    for tag in runs:
        order = ORDERS["a" if same_run else tag]
        lines = [f"{t} Q0 {DOCS[j]} {k + 1} {10 - k} {tag}\n"
                 for t in topics_r for k, j in enumerate(order)]
        (folder / f"{tag}.run").write_text("".join(lines))
        paths.append(str(folder / f"{tag}.run"))
    return str(folder / "qrels"), paths


CAMPAIGNS = {
    "one_topic": dict(topics_q=["1"], topics_r=["1"]),
    "one_run": dict(topics_q=["1", "2", "3"], topics_r=["1", "2", "3"], runs="a"),
    "no_common": dict(topics_q=["7", "8", "9"], topics_r=["1", "2", "3"], runs="ab"),
    "all_zero": dict(topics_q=["1", "2", "3"], topics_r=["1", "2", "3"], grade=lambda i: 0),
    "identical": dict(topics_q=["1", "2", "3"], topics_r=["1", "2", "3"], same_run=True),
}


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory):
    base = tmp_path_factory.mktemp("degenerate")
    return {name: _write(base / name, **spec) for name, spec in CAMPAIGNS.items()}


COMMANDS = {
    "eval": ["eval", "-m", "AP", "-m", "P@10", "-m", "nDCG@10"],
    "eval_context": ["eval", "-m", "P_rare(alpha=0.5)@10", "-m", "NRG@10", "-m", "Twist"],
    "explain": ["explain", "-k", "10"],
    "twist_archetypes": ["twist", "archetypes"],
    "aggregate": ["aggregate", "-m", "AP"],
    "meta_correlation": ["meta", "correlation", "-m", "AP", "-m", "nDCG"],
    "meta_significance": ["meta", "significance", "-m", "AP"],
    "meta_systems": ["meta", "systems", "-m", "AP", "--trials", "5"],
    "meta_downsample": ["meta", "downsample", "-m", "AP"],
}

#: (campaign, command) -> the exit status decided for it (docs/conventions.md,
#: "Degenerate campaigns"); everything else must exit 0
EXPECTED_2 = {
    **{("no_common", c): 2 for c in COMMANDS},               # wrong qrels file
    **{("all_zero", c): 2 for c in ("aggregate", "meta_correlation", "meta_significance",
                                     "meta_systems", "meta_downsample")},   # no topic set
    **{("one_run", c): 2 for c in ("meta_correlation", "meta_significance", "meta_systems",
                                    "meta_downsample")},     # rankings of one system
    ("one_topic", "meta_significance"): 2,                   # tests need 2 topics
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("name", list(CAMPAIGNS))
def test_degenerate_exit_status(campaigns, capsys, name, command):
    qrels, runs = campaigns[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main([*COMMANDS[command], qrels, *runs])
    out, err = capsys.readouterr()
    assert rc == EXPECTED_2.get((name, command), 0), err
    if rc == 2:
        assert err.startswith("irmeta: error:") and "Traceback" not in err
    else:
        assert out.strip() and "Empty DataFrame" not in out


def _tsv(args):
    return pd.read_csv(pd.io.common.StringIO(args), sep="\t")


def test_no_common_topics_is_an_error_unless_complete(campaigns, capsys):
    """eval: no run shares a topic with the qrels -> CampaignError (exit 2); with -c every
    qrels topic is an empty ranking: AP 0 on each, as trec_eval -c prints."""
    qrels, runs = campaigns["no_common"]
    assert main(["eval", qrels, *runs, "-m", "AP"]) == 2
    assert "no run shares a topic with the qrels" in capsys.readouterr().err
    assert main(["eval", "-c", qrels, *runs, "-m", "AP", "-q", "--format", "tsv"]) == 0
    frame = _tsv(capsys.readouterr().out)
    assert set(frame["topic"].astype(str)) == {"7", "8", "9", "all"}
    assert (frame["value"] == 0).all()


def test_no_common_topics_api(campaigns):
    import irmeta
    from irmeta.errors import CampaignError
    qrels, runs = campaigns["no_common"]
    dropped = r"^6 topic\(s\) of 2 run\(s\) are not in the qrels"
    with pytest.raises(CampaignError, match="no run shares a topic"), \
            pytest.warns(UserWarning, match=dropped):
        irmeta.evaluate(qrels, runs, ["AP"])
    with pytest.warns(UserWarning, match=dropped):
        res = irmeta.evaluate(qrels, runs, ["AP"], complete=True)
    assert (res.means == 0).all()


def test_all_zero_qrels_eval_numbers(campaigns, capsys):
    """All grades 0: AP/P/nDCG are 0 (trec_eval), Twist is undefined (NaN)."""
    qrels, runs = campaigns["all_zero"]
    assert main(["eval", qrels, *runs, "-m", "AP", "-m", "nDCG@10", "-m", "Twist",
                 "--format", "tsv"]) == 0
    frame = _tsv(capsys.readouterr().out).set_index(["run", "measure"])["value"]
    assert (frame.xs("AP", level="measure") == 0).all()
    assert (frame.xs("nDCG@10", level="measure") == 0).all()
    assert frame.xs("Twist", level="measure").isna().all()


def test_all_zero_aggregate_names_the_cause(campaigns, capsys):
    qrels, runs = campaigns["all_zero"]
    assert main(["aggregate", qrels, *runs]) == 2
    err = capsys.readouterr().err
    assert "no qrels topic has a relevant document (grade >= 1; the highest grade is 0)" in err


def test_meta_systems_one_run(campaigns, capsys):
    qrels, runs = campaigns["one_run"]
    assert main(["meta", "systems", qrels, *runs, "-m", "AP", "--trials", "5"]) == 2
    assert "needs at least 2 runs, got 1" in capsys.readouterr().err


def test_meta_systems_sizes_beyond_runs(campaigns, capsys):
    qrels, runs = campaigns["identical"]
    assert main(["meta", "systems", qrels, *runs, "-m", "AP", "--sizes", "8"]) == 2
    assert "exceeds the 3 runs" in capsys.readouterr().err


def test_one_topic_aggregate_numbers(campaigns, capsys):
    """One topic: GAWM and the mean are the topic's AP (uniform weight on one topic)."""
    import irmeta
    qrels, runs = campaigns["one_topic"]
    ap = irmeta.evaluate(qrels, runs, ["AP"]).aggregate()["AP"]
    assert main(["aggregate", qrels, *runs, "-m", "AP", "-a", "mean", "-a", "gawm",
                 "--format", "tsv"]) == 0
    frame = _tsv(capsys.readouterr().out).set_index("run")
    np.testing.assert_allclose(frame.loc[ap.index, "mean"], ap)
    np.testing.assert_allclose(frame.loc[ap.index, "gawm"], ap)


# ------------------------------------------------------------------- depths
@pytest.mark.parametrize("measure", ["Twist@100000000", "Twist.rho@1000001", "Twist.sigma@200000"])
def test_twist_depth_limit(campaigns, capsys, measure):
    qrels, runs = campaigns["identical"]
    assert main(["eval", qrels, *runs, "-m", measure]) == 2
    assert "exceeds the limit of 100,000" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["twist", "archetypes", "--depth", "1000000"],
                                  ["twist", "curve", "--run", "a", "--topic", "1",
                                   "--depth", "1000000"],
                                  ["twist", "grid", "--depth", "1000000"]])
def test_twist_cli_depth_limit(campaigns, capsys, args):
    qrels, runs = campaigns["one_topic"]
    assert main([*args, qrels, *runs]) == 2
    assert "exceeds the limit of 100,000" in capsys.readouterr().err


def test_twist_depth_api_and_options():
    from irmeta.errors import ParameterError
    from irmeta.report import ReportOptions
    from irmeta.reproduce.twist import TwistParams
    with pytest.raises(ParameterError, match="limit of 100,000"):
        ReportOptions(twist_depth=10**8).validate()
    with pytest.raises(ParameterError, match="limit of 100,000"):
        TwistParams(depth=10**8).validate()


def test_twist_depth_at_limit_accepted(campaigns, capsys):
    qrels, runs = campaigns["one_topic"]
    assert main(["eval", qrels, *runs, "-m", "Twist@100000", "--format", "tsv"]) == 0
    frame = _tsv(capsys.readouterr().out)
    assert frame["value"].notna().all()


@pytest.mark.parametrize("measure", ["P@100000000", "nDCG@100000000", "P_rare(alpha=1)@100000000",
                                     "AP_rare(alpha=1,depth=100000000)@10", "NRG@100000000"])
def test_huge_cutoffs_are_harmless(campaigns, capsys, measure):
    """Cutoffs beyond the ranking depth are clamped where exactly equivalent (rarity depth,
    NRG, nDCG) or only divide (P@K, P_rare@K): no limit needed, the value is the exact one."""
    import irmeta
    qrels, runs = campaigns["identical"]
    res = irmeta.evaluate(qrels, runs, [measure, measure.replace("100000000", "10")])
    big, small = res.means[:, 0], res.means[:, 1]
    if measure.startswith("P"):                    # precisions: sum of gains / K
        np.testing.assert_allclose(big * 1e8, small * 10)
    else:
        np.testing.assert_array_equal(big, small)
    assert not math.isnan(big[0])
