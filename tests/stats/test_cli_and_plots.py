"""The `irmeta meta` subcommands and the meta-evaluation figures."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from irmeta.cli.main import cli, main
from irmeta.stats import alpha_sweep, bootstrap_power, pool_downsampling, system_dependence
from tests.stats.conftest import synthetic_qrels_runs

#: CLI runs of every meta analysis, with figures
#: cost seconds each: the full suite runs them (docs/development.md, the quick loop)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    base = tmp_path_factory.mktemp("meta")
    qrels, runs = synthetic_qrels_runs(n_runs=6, n_topics=10)
    with open(base / "qrels.txt", "w") as fh:
        for t, docs in qrels.items():
            for d, g in docs.items():
                fh.write(f"{t} 0 {d} {g}\n")
    paths = []
    for name, topics in runs.items():
        p = base / f"{name}.txt"
        with open(p, "w") as fh:
            for t, docs in topics.items():
                for rank, (d, s) in enumerate(docs.items(), 1):
                    fh.write(f"{t} Q0 {d} {rank} {s} {name}\n")
        paths.append(str(p))
    return str(base / "qrels.txt"), paths, base


def run(args):
    result = CliRunner().invoke(cli, ["meta", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_correlation_matrix_cli(files):
    q, runs, _ = files
    out = run(["correlation", q, *runs, "-m", "AP", "-m", "nDCG", "--format", "tsv"])
    frame = pd.read_csv(io.StringIO(out), sep="\t")
    assert list(frame.columns) == ["measure", "AP", "nDCG"]
    assert frame.loc[0, "AP"] == 1.0


def test_sweep_cli_writes_plot(files):
    q, runs, base = files
    out = run(["correlation", q, *runs, "--sweep", "RBP(p={alpha})", "--alphas", "0.5,0.9",
               "--plot", str(base / "sweep.png"), "--format", "csv"])
    frame = pd.read_csv(io.StringIO(out))
    assert frame["kendall"].iloc[0] == pytest.approx(1.0)
    assert (base / "sweep.png").exists() and (base / "sweep.svg").exists()


@pytest.mark.parametrize("args", [
    ["leaderboard", "-m", "AP", "--trials", "300"],
    ["discpower", "-m", "AP", "-m", "P@10", "--test", "tukey_hsd", "--test", "pairwise_tukey"],
    ["stability", "-m", "AP", "--trials", "50"],
    ["downsample", "-m", "AP", "--levels", "50,10", "--top-fraction", "0.75"],
    ["systems", "-m", "AP", "--sizes", "2,4", "--trials", "5"],
])
def test_subcommands_print_tables(files, args):
    q, runs, base = files
    out = run([args[0], q, *runs, *args[1:], "--format", "tsv",
               "--plot", str(base / f"{args[0]}.png")])
    frame = pd.read_csv(io.StringIO(out), sep="\t")
    assert len(frame) > 0 and "measure" in frame.columns
    assert (base / f"{args[0]}.png").exists()


@pytest.mark.parametrize("args", [
    ["-m", "AP", "--test", "bootstrap", "--trials", "200"],
    ["-m", "AP", "--test", "paired_t", "--correction", "holm", "--per-pair"],
])
def test_significance_prints_tables_and_refuses_plot(files, args):
    q, runs, base = files
    frame = pd.read_csv(io.StringIO(run(["significance", q, *runs, *args, "--format", "tsv"])),
                        sep="\t")
    assert len(frame) > 0 and "measure" in frame.columns
    result = CliRunner().invoke(cli, ["meta", "significance", q, *runs, *args, "--plot",
                                      str(base / "sig.png")])
    assert result.exit_code == 2 and "draws no figure" in result.output


def test_leaderboard_cli_equals_the_library(files):
    import irmeta
    from irmeta.stats import leaderboard
    q, runs, base = files
    out = run(["leaderboard", q, *runs, "-m", "AP", "-m", "P@10", "--trials", "400",
               "--seed", "3", "--format", "tsv", "--plot", str(base / "lb.png")])
    frame = pd.read_csv(io.StringIO(out), sep="\t")
    res = irmeta.evaluate(q, runs, measures=["AP"])
    want = leaderboard(res.matrix("AP"), trials=400, seed=3).table
    got = frame[frame["measure"] == "AP"].set_index("run")
    assert list(got.index) == list(want.index)
    np.testing.assert_allclose(got["ci_low"], want["ci_low"], rtol=1e-12)
    assert (base / "lb-1.png").exists() and (base / "lb-2.png").exists()


def test_errors_exit_2(files, capsys):
    q, runs, _ = files
    assert main(["meta", "stability", q, *runs, "-m", "NoSuchMeasure"]) == 2
    assert main(["meta", "significance", q, *runs]) == 2     # no -m


@pytest.mark.slow
def test_plots_directly(tmp_path, small_campaign):
    from irmeta.plot import meta as pm
    sweep = alpha_sweep(small_campaign, {"RBP(p=0.5)": "RBP(p={alpha})"}, alphas=[0.5, 0.9])
    pm.alpha_sweep_plot(sweep, path=tmp_path / "a")
    summary, curves = bootstrap_power({"m": np.random.default_rng(0).random((5, 10))}, trials=100)
    pm.asl_plot(curves, summary=summary, path=tmp_path / "b.png")
    table = pool_downsampling(small_campaign, ["AP"], levels=[50])
    pm.downsampling_plot(table, path=tmp_path / "c")
    pm.systems_plot(system_dependence(small_campaign, ["AP"], sizes=(2, 4), trials=3),
                    path=tmp_path / "d")
    pm.stability_table_plot(pd.DataFrame({"measure": ["x", "y"], "s": [0.1, 0.2]}),
                            path=tmp_path / "e")
    for stem in "abcde":
        assert (tmp_path / f"{stem}.png").stat().st_size > 1000
        assert (tmp_path / f"{stem}.svg").exists()
