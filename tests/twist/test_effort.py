"""Effort/gain grids, archetype tables, plots and the `irmeta twist` command."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta import effort
from irmeta.cli.main import main
from irmeta.measures import twist as tw
from tests.twist import example
from tests.twist.test_reference import random_campaign


def test_grid_rows_and_columns():
    gain = np.array([0.0, 0.0, 0.0, 0.1, 0.2, 0.3, 0.4, 0.9])
    twist = np.array([0.0, 0.25, 0.5, 0.75, 1.0, 0.2, 0.49, 0.99])
    row, col, q, counts = effort.grid(twist, gain)
    np.testing.assert_allclose(q, np.quantile(gain, [.25, .5, .75]))
    assert q[0] == 0.0
    # ties at a cut point go to the lower row: every zero gain is in row 0
    assert row.tolist()[:3] == [0, 0, 0]
    assert row.tolist() == [int(np.sum(q < g)) for g in gain]
    assert col.tolist() == [0, 1, 2, 3, 3, 0, 1, 3]
    assert counts.sum() == len(gain)
    for r, c in zip(row, col):
        assert counts[r, c] >= 1


def test_effort_gain_shares_match_a_loop():
    campaign, _ = random_campaign(11)
    eg = effort.effort_gain(campaign, "AP", depth=60)
    counts = np.zeros((4, 4))
    for _, p in eg.points.iterrows():
        counts[p["row"], p["col"]] += 1
    np.testing.assert_array_equal(counts[::-1], eg.counts.values)
    total = counts.sum()
    assert eg.diagonal == pytest.approx(sum(counts[i, i] for i in range(4)) / total)
    assert eg.high_high == pytest.approx(sum(counts[i, j] for i in (2, 3) for j in (0, 1)) / total)
    assert eg.table().values.sum() == pytest.approx(100.0)
    # the gain values are the registered kernel's: same as evaluate
    ap = irmeta.evaluate(campaign, measures=["AP"]).values[:, 0]
    tv = tw.components(campaign, 60).twist
    r = [campaign.runs.index(x) for x in eg.points["run"]]
    t = [campaign.topics.index(x) for x in eg.points["topic"]]
    np.testing.assert_array_equal(eg.points["gain"].to_numpy(), ap[r, t])
    np.testing.assert_array_equal(eg.points["twist"].to_numpy(), tv[r, t])
    assert len(eg.points) == int(np.sum(~np.isnan(tv)))


def test_summary_and_most_telling():
    campaign, _ = random_campaign(4)
    summary, grids = effort.effort_gain_summary(campaign, depth=60)
    assert list(summary.index) == ["AP", "bpref", "RBP", "nDCG"]
    for name, eg in grids.items():
        assert summary.loc[name, "diagonal %"] == pytest.approx(100 * eg.diagonal)
    mt = effort.most_telling(grids["nDCG"], k=2)
    assert 1 <= len(mt) <= 4 and set(mt["kind"]) <= {"high gain, high effort",
                                                       "high gain, low effort"}
    with pytest.raises(irmeta.ParameterError, match="most_telling"):
        effort.most_telling(grids["nDCG"], k=0)


def test_archetype_table_percentages():
    campaign, _ = random_campaign(2)
    frame = effort.archetypes(campaign, depth=60)
    table = effort.archetype_table({"x": frame})
    assert table.loc["x", "total"] == len(frame)
    assert table.loc["x", list(effort.ARCHETYPES)].sum() == pytest.approx(100.0)
    defined = tw.components(campaign, 60).defined
    assert len(frame) == campaign.num_runs * int(defined.sum())
    assert list(effort.PAPER_TABLE2.columns) == ["total", *effort.ARCHETYPES]


@pytest.mark.slow
def test_plots_are_written(tmp_path):
    from irmeta.plot.effort import plot_crp_dcg_panels, plot_effort_gain
    qrels, runs = example.qrels_and_runs()
    c = irmeta.load_campaign(qrels, list(runs.values()), names=list(runs))
    panels = effort.crp_dcg_panels(c, [("b", "t1")], depth=15, normalised=True)
    _, written = plot_crp_dcg_panels(panels, tmp_path / "crp.png", normalised=True,
                                     full_scale=True)
    campaign, _ = random_campaign(6)
    eg = effort.effort_gain(campaign, "nDCG", depth=60)
    written += plot_effort_gain({"nDCG": eg}, tmp_path / "eg", title="random",
                                highlight=[(campaign.runs[0], campaign.topics[1])])[1]
    assert sorted(p.name for p in written) == ["crp.png", "crp.svg", "eg.png", "eg.svg"]
    assert all(p.stat().st_size > 1000 for p in written)
    with pytest.raises(irmeta.ParameterError):
        effort.crp_dcg_panels(c, [], depth=15)


@pytest.fixture
def example_files(tmp_path):
    qrels, runs = example.qrels_and_runs()
    qpath = tmp_path / "qrels.txt"
    qpath.write_text("".join(f"t1 0 {d} {g}\n" for d, g in qrels["t1"].items()))
    paths = []
    for name, run in runs.items():
        p = tmp_path / f"{name}.run"
        p.write_text("".join(f"t1 Q0 {d} {i} {s} {name}\n"
                             for i, (d, s) in enumerate(run["t1"].items())))
        paths.append(str(p))
    return str(qpath), paths


def _run_cli(args, capsys):
    code = main(args)
    out = capsys.readouterr().out
    return code, out


def test_cli_eval_and_archetypes(example_files, capsys):
    qrels, runs = example_files
    code, out = _run_cli(["eval", "--format", "tsv", "-m", "Twist@15", "-m",
                          "Twist.rho(crossing=formal)@15", qrels, *runs], capsys)
    assert code == 0
    frame = pd.read_csv(io.StringIO(out), sep="\t")
    v = frame.set_index(["run", "measure"])["value"]
    assert v[("b", "Twist@15")] == pytest.approx(0.5254, abs=5e-5)
    assert v[("b", "Twist.rho(crossing=formal)@15")] == 1.0
    code, out = _run_cli(["twist", "archetypes", "--depth", "15", "--per-topic", "--format", "tsv",
                          qrels, *runs], capsys)
    assert code == 0
    arche = pd.read_csv(io.StringIO(out), sep="\t").set_index("run")["archetype"]
    assert arche.to_dict() == {"ideal": "ideal", "worst": "worst", "fs": "full_scale",
                               "a": "typical_B", "b": "typical_A"}


@pytest.mark.slow
def test_cli_curve_and_grid(example_files, capsys, tmp_path):
    qrels, runs = example_files
    code, out = _run_cli(["twist", "curve", "--depth", "15", "--format", "tsv", "--run", "b",
                          "--topic", "t1", "--plot", str(tmp_path / "c"), qrels, *runs], capsys)
    assert code == 0
    frame = pd.read_csv(io.StringIO(out), sep="\t")
    assert frame["crp"].tolist() == [0, -6, -8, -12, -11, -13, -14, -14, -9, -6, -6, -6, 5, 12, 12]
    assert (tmp_path / "c.png").exists() and (tmp_path / "c.svg").exists()
    code, out = _run_cli(["twist", "grid", "--depth", "15", "--format", "markdown", "-g", "AP",
                          qrels, *runs], capsys)
    assert code == 0 and out.startswith("| gain |") and "| AP |" in out
    code, _ = _run_cli(["twist", "curve", "--depth", "15", "--run", "nosuchrun", "--topic", "t1",
                        qrels, *runs], capsys)
    assert code == 2


@pytest.mark.slow
def test_real_ehealth(ehealth_campaign):
    c = ehealth_campaign
    res = irmeta.evaluate(c, measures=["Twist", "Twist.rho", "Twist.sigma"])
    assert res.values.shape == (16, 3, 50)
    assert not np.any(np.isnan(res.values))            # every topic has 1..336 <= 1000 relevant
    assert np.all((res.values >= 0) & (res.values <= 1))
    np.testing.assert_allclose(res.values[:, 0], (res.values[:, 1] + res.values[:, 2]) / 2)
    table = effort.archetype_table(effort.archetypes(c))
    assert table.loc["campaign", "total"] == 800


def test_crp_dcg_panels_hold_the_figure_numbers():
    """Figure 11's numbers come from effort.crp_dcg_panels; the plot only draws them."""
    from irmeta.plot.effort import plot_crp_dcg_panels
    qrels, runs = example.qrels_and_runs()
    c = irmeta.load_campaign(qrels, list(runs.values()), names=list(runs))
    (p,) = effort.crp_dcg_panels(c, [("b", "t1")], depth=15, max_rank=12)
    comp = tw.components(c, 15, "matters", 1, warn=False)
    r, t = c.run_index("b"), c.topic_index("t1")
    assert (p.run, p.topic, p.x_max) == ("b", "t1", 12)
    assert p.twist == comp.twist[r, t] and p.crossing == comp.crossing[r, t]
    assert p.rb == effort.curves(c, "b", "t1", depth=15).attrs["rb"]
    pd.testing.assert_frame_equal(p.curves, effort.curves(c, "b", "t1", depth=15).iloc[:12])
    fig, written = plot_crp_dcg_panels([p])
    assert written == [] and fig.axes[0].get_title().startswith("b / topic t1: Twist")
    with pytest.raises(irmeta.ParameterError, match="crp_dcg_panels: pairs is empty"):
        effort.crp_dcg_panels(c, [], depth=15)
