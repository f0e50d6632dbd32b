"""Every public function, every kind of bad argument: an IrmetaError naming the argument.

Never a bare TypeError / IndexError / AttributeError / OverflowError, never a silently
coerced (1.5 -> 2) or silently dropped (trials= to compare) argument. The contract is
written down in docs/conventions.md, "The Python API: errors".
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irmeta
from irmeta import effort, explain, stats
from irmeta.aggregate import aggregate_matrix, gawm
from irmeta.demo import demo_paths
from irmeta.errors import IrmetaError
from tests.quick import examples


@pytest.fixture(scope="module")
def paths():
    p = demo_paths()
    return str(p.qrels), [str(r) for r in p.runs[:4]]


@pytest.fixture(scope="module")
def campaign(paths):
    return irmeta.load_campaign(*paths)


@pytest.fixture(scope="module")
def results(campaign):
    return irmeta.evaluate(campaign, measures=["AP", "P@10"])


@pytest.fixture(scope="module")
def matrix(results):
    return results.matrix("AP")


# (id, call(ctx, value), bad value, text the message must contain)
# ctx: a namespace with q (qrels path), runs (paths), c (campaign), res (results), X (matrix)
CASES = [
    ("evaluate runs int", lambda x, v: irmeta.evaluate(x.q, v), 123, "runs"),
    ("evaluate runs empty", lambda x, v: irmeta.evaluate(x.q, v), [], "runs"),
    ("evaluate measures None", lambda x, v: irmeta.evaluate(x.c, measures=v), None, "measures"),
    ("evaluate measures empty", lambda x, v: irmeta.evaluate(x.c, measures=v), [], "measures"),
    ("evaluate measures int", lambda x, v: irmeta.evaluate(x.c, measures=v), [1], "measures"),
    ("evaluate max_docs 1.5", lambda x, v: irmeta.evaluate(x.q, x.runs, max_docs=v),
     1.5, "max_docs"),
    ("evaluate max_docs 0", lambda x, v: irmeta.evaluate(x.q, x.runs, max_docs=v), 0, "max_docs"),
    ("evaluate max_docs bool", lambda x, v: irmeta.evaluate(x.q, x.runs, max_docs=v),
     True, "max_docs"),
    ("evaluate float32 str", lambda x, v: irmeta.evaluate(x.q, x.runs, float32=v),
     "yes", "float32"),
    ("evaluate complete int", lambda x, v: irmeta.evaluate(x.c, complete=v), 2, "complete"),
    ("evaluate rel_level 1.5", lambda x, v: irmeta.evaluate(x.c, rel_level=v), 1.5, "rel_level"),
    ("evaluate rel_level nan", lambda x, v: irmeta.evaluate(x.c, rel_level=v),
     math.nan, "rel_level"),
    ("evaluate groups list", lambda x, v: irmeta.evaluate(x.c, groups=v), ["a"], "groups"),
    ("evaluate reference str", lambda x, v: irmeta.evaluate(x.c, reference=v), "r", "reference"),
    ("evaluate prior_runs int", lambda x, v: irmeta.evaluate(x.c, prior_runs=v), 5, "prior_runs"),
    ("evaluate campaign+max_docs", lambda x, v: irmeta.evaluate(x.c, max_docs=v), 1, "max_docs"),
    ("evaluate campaign+names", lambda x, v: irmeta.evaluate(x.c, names=v), ["a"] * 4, "names"),
    ("evaluate campaign+float32", lambda x, v: irmeta.evaluate(x.c, float32=v), True, "float32"),
    ("evaluate campaign+dedupe", lambda x, v: irmeta.evaluate(x.c, dedupe=v), True, "dedupe"),
    ("evaluate campaign+runs", lambda x, v: irmeta.evaluate(x.c, v), "runs", "runs"),
    ("P_rare alpha nan", lambda x, v: irmeta.evaluate(x.c, measures=v),
     "P_rare(alpha=nan)@10", "alpha"),
    ("P_rare alpha inf", lambda x, v: irmeta.evaluate(x.c, measures=v),
     "P_rare(alpha=inf)@10", "alpha"),
    ("RBP p 1e400", lambda x, v: irmeta.parse_measure(v), "RBP(p=1e400)", "'p'"),
    ("parse_measures int", lambda x, v: irmeta.parse_measures(v), 5, "items"),
    ("matrix int", lambda x, v: x.res.matrix(v), 123, "measure"),
    ("matrix negative", lambda x, v: x.res.matrix(v), -1, "measure"),
    ("matrix bool", lambda x, v: x.res.matrix(v), True, "measure"),
    ("matrix None", lambda x, v: x.res.matrix(v), None, "measure"),
    ("matrix unknown", lambda x, v: x.res.matrix(v), "nDCG", "nDCG"),
    ("wide float", lambda x, v: x.res.wide(v), 0.5, "measure"),
    ("wide evaluated_only", lambda x, v: x.res.wide(0, evaluated_only=v), "no", "evaluated_only"),
    ("aggregate int", lambda x, v: x.res.aggregate(v), 3, "aggregator"),
    ("to_frame per_topic", lambda x, v: x.res.to_frame(per_topic=v), "yes", "per_topic"),
    ("explain k 1.5", lambda x, v: explain.explain_documents(x.c, x.c.runs[0], k=v), 1.5, "k"),
    ("explain relevant_only",
     lambda x, v: explain.explain_documents(x.c, x.c.runs[0], relevant_only=v),
     "no", "relevant_only"),
    ("explain rel_level",
     lambda x, v: explain.explain_documents(x.c, x.c.runs[0], rel_level=v), 1.5,
     "rel_level"),
    ("unique_contributions per_topic",
     lambda x, v: explain.unique_contributions(x.c, per_topic=v), 1,
     "per_topic"),
    ("unique_documents campaign", lambda x, v: explain.unique_documents(v), "c", "campaign"),
    ("gawm tol nan", lambda x, v: gawm(x.X, tol=v), math.nan, "tol"),
    ("gawm tol 10**400", lambda x, v: gawm(x.X, tol=v), 10 ** 400, "tol"),
    ("gawm max_iter inf", lambda x, v: gawm(x.X, max_iter=v), math.inf, "max_iter"),
    ("gawm matrix 10**400", lambda x, v: gawm(v), [[10 ** 400, 1], [1, 1]], "matrix"),
    ("aggregate_matrix aggregator", lambda x, v: aggregate_matrix(x.X, v), "median", "median"),
    ("compare trials to paired_t", lambda x, v: stats.pairwise_test(x.X, "paired_t", trials=v),
     5, "trials"),
    ("compare seed to wilcoxon", lambda x, v: stats.pairwise_test(x.X, "wilcoxon", seed=v),
     1, "seed"),
    ("compare misspelt keyword", lambda x, v: stats.pairwise_test(x.X, "bootstrap", sample=v),
     5, "sample"),
    ("compare level nan", lambda x, v: stats.pairwise_test(x.X, level=v), math.nan, "level"),
    ("compare pairs int", lambda x, v: stats.pairwise_test(x.X, pairs=v), 5, "pairs"),
    ("compare pairs index", lambda x, v: stats.pairwise_test(x.X, pairs=v), [(0, 99)], "pairs"),
    ("bootstrap trials 1.5", lambda x, v: stats.bootstrap(x.X, trials=v), 1.5, "trials"),
    ("bootstrap trials huge", lambda x, v: stats.bootstrap(x.X, trials=v), 10 ** 400, "trials"),
    ("randomisation seed -1", lambda x, v: stats.randomisation(x.X, trials=5, seed=v), -1, "seed"),
    ("paired_t scores str", lambda x, v: stats.paired_t(v), [["a", "b"], ["c", "d"]], "scores"),
    ("adjust_pvalues pvalues", lambda x, v: stats.adjust_pvalues(v, "holm"), [object()], "pvalues"),
    ("kendall_tau x", lambda x, v: stats.kendall_tau(v, [1, 2]), [{}, {}], "x and y"),
    ("rank_correlation method", lambda x, v: stats.rank_correlation([1, 2], [2, 1], v),
     3, "method"),
    ("system_means measures", lambda x, v: stats.system_means(x.c, v), None, "measures"),
    ("system_means kwargs", lambda x, v: stats.system_means(x.c, ["AP"], max_doc=v), 3, "max_doc"),
    ("alpha_sweep alphas nan", lambda x, v: stats.alpha_sweep(x.c, alphas=v), [math.nan], "alphas"),
    ("discriminative_power levels None",
     lambda x, v: stats.discriminative_power({"AP": x.X}, levels=v),
     None, "levels"),
    ("discriminative_power tests", lambda x, v: stats.discriminative_power({"AP": x.X}, tests=v),
     [3], "tests"),
    ("bootstrap_power level", lambda x, v: stats.bootstrap_power({"AP": x.X}, level=v),
     1.5, "level"),
    ("fuzziness_stability fuzziness", lambda x, v: stats.fuzziness_stability(x.X, fuzziness=v),
     math.nan, "fuzziness"),
    ("buckley_voorhees relative", lambda x, v: stats.buckley_voorhees(x.X, trials=5, relative=v),
     "yes", "relative"),
    ("downsample_rows levels None", lambda x, v: stats.downsample_rows(x.c, v), None, "levels"),
    ("downsample_rows campaign", lambda x, v: stats.downsample_rows(v), 3, "campaign"),
    ("filter_top_runs top_fraction nan", lambda x, v: stats.filter_top_runs(x.c, v),
     math.nan, "top_fraction"),
    ("system_dependence sizes", lambda x, v: stats.system_dependence(x.c, ["AP"], sizes=v),
     4, "sizes"),
    ("pool_downsampling repeats", lambda x, v: stats.pool_downsampling(x.c, ["AP"], repeats=v), 1.5,
     "repeats"),
    ("qrels_of rows", lambda x, v: stats.qrels_of(x.c, v), [[1]], "rows"),
    ("curve_arrays runs float", lambda x, v: effort.curve_arrays(x.c, v, depth=10), 0.5, "runs"),
    ("curves normalised", lambda x, v: effort.curves(x.c, 0, 0, depth=10, normalised=v), "y",
     "normalised"),
    ("effort_gain_summary gains", lambda x, v: effort.effort_gain_summary(x.c, v, depth=10), None,
     "gains"),
    ("effort_gain_summary depth nan",
     lambda x, v: effort.effort_gain_summary(x.c, depth=v), math.nan,
     "depth"),
    ("most_telling k 1.5", lambda x, v: effort.most_telling(None, v), 1.5, "k"),
    # converted to @validated (irmeta.constraints): the same words as before
    ("gawm floor -1", lambda x, v: gawm(x.X, floor=v), -1.0, "floor"),
    ("gawm max_iter 0", lambda x, v: gawm(x.X, max_iter=v), 0, "max_iter"),
    ("fuzziness_stability subset_size 0",
     lambda x, v: stats.fuzziness_stability(x.X, subset_size=v), 0, "subset_size"),
    ("fuzziness_stability trials 0", lambda x, v: stats.fuzziness_stability(x.X, trials=v), 0,
     "trials"),
    ("buckley_voorhees seed -1", lambda x, v: stats.buckley_voorhees(x.X, trials=5, seed=v), -1,
     "seed"),
    ("buckley_voorhees fuzziness nan",
     lambda x, v: stats.buckley_voorhees(x.X, trials=5, fuzziness=v), math.nan, "fuzziness"),
    ("explain depth 0", lambda x, v: explain.explain_documents(x.c, x.c.runs[0], depth=v), 0,
     "depth"),
    ("unique_contributions k 0", lambda x, v: explain.unique_contributions(x.c, v), 0, "k"),
    ("unique_contributions rel_level", lambda x, v: explain.unique_contributions(x.c, rel_level=v),
     1.5, "rel_level"),
    ("unique_documents k bool", lambda x, v: explain.unique_documents(x.c, v), True, "k"),
    ("most_telling k 0", lambda x, v: effort.most_telling(None, v), 0, "k"),
]


#: public functions whose arguments are declared with @validated
VALIDATED = [gawm, stats.fuzziness_stability, stats.buckley_voorhees, stats.leaderboard,
             explain.explain_documents, explain.unique_contributions, explain.unique_documents,
             effort.most_telling, effort.curves]


@pytest.mark.parametrize("func", VALIDATED, ids=lambda f: f.__name__)
def test_converted_functions_declare_their_constraints(func):
    from irmeta.constraints import constraints_of
    declared = constraints_of(func)
    assert declared
    for name, constraint in declared.items():     # every invalid example is refused by name
        for value in constraint.invalid_examples():
            with pytest.raises(IrmetaError, match=name):
                constraint.check(value, name, func.__name__)


class _Ctx:
    def __init__(self, paths, campaign, results, matrix):
        self.q, self.runs = paths
        self.runs = self.runs[:1]
        self.c, self.res, self.X = campaign, results, matrix


@pytest.fixture(scope="module")
def ctx(paths, campaign, results, matrix):
    return _Ctx(paths, campaign, results, matrix)


@pytest.mark.parametrize("call, value, named", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_argument_is_an_irmeta_error_naming_it(ctx, call, value, named):
    if value == "runs":          # the campaign case: runs given next to a Campaign
        value = ctx.runs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(IrmetaError) as info:
            call(ctx, value)
    assert named in str(info.value)


# ------------------------------------------------------------- behaviour, not just errors
def test_a_single_measure_string_is_one_measure(campaign):
    assert irmeta.evaluate(campaign, measures="AP").names == ["AP"]
    assert irmeta.evaluate(campaign, measures="P.5,10").names == ["P_5", "P_10"]
    assert [m.name for m in irmeta.parse_measures("AP")] == ["AP"]
    assert list(stats.system_means(campaign, "AP").columns) == ["AP"]


def test_compare_uses_the_trials_it_is_given(matrix):
    r = stats.pairwise_test(matrix, "bootstrap", trials=5, seed=1)
    assert r.parameters.trials == 5
    assert r.table["p_value"].equals(stats.bootstrap(matrix, trials=5, seed=1).table["p_value"])
    with pytest.raises(IrmetaError, match="accepted: .*level"):
        stats.pairwise_test(matrix, "paired_t", seed=0)


def test_samples_the_former_name_of_trials_is_refused(matrix):
    """``trials`` is the one name of the resample count; ``samples=`` (never released)
    is an unknown argument like any other."""
    assert stats.bootstrap(matrix, trials=7, seed=2).parameters.trials == 7
    for fn in (stats.bootstrap, stats.discriminative_power, stats.bootstrap_power):
        with pytest.raises(TypeError, match="samples"):
            fn(matrix if fn is stats.bootstrap else {"AP": matrix}, samples=7)
    with pytest.raises(IrmetaError, match="unexpected argument.*samples"):
        stats.pairwise_test(matrix, "bootstrap", samples=7)


def test_measure_listing_says_alpha_is_required():
    from irmeta.cli.main import cli
    out = CliRunner().invoke(cli, ["measures"]).output
    line = next(s for s in out.splitlines() if "parameters:" in s and "variant=" in s)
    assert "alpha (required)" in line and "alpha=None" not in out


def test_cli_rejects_an_empty_run_name():
    from irmeta.cli.main import cli
    res = CliRunner().invoke(cli, ["eval", "--demo", "--names", "a,"])
    assert res.exit_code == 2 and "empty name" in res.output


def test_aggregate_json_is_full_precision(results):
    from irmeta.cli.main import cli
    res = CliRunner().invoke(cli, ["aggregate", "--demo", "-a", "mean", "--format", "json"])
    assert res.exit_code == 0, res.output
    records = json.loads(res.output[res.output.index("["):])
    demo = irmeta.evaluate(irmeta.load_campaign(str(demo_paths().qrels),
                                                [str(p) for p in demo_paths().runs]), measures="AP")
    expected = demo.matrix("AP").mean(axis=1)
    for rec in records:
        assert rec["mean"] == expected[rec["run"]]          # bit for bit, not 10 digits


# ------------------------------------------------------------- fuzz: IrmetaError or success
JUNK = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 30, 10 ** 30),
                 st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6),
                 st.binary(max_size=4), st.lists(st.integers(-3, 3), max_size=3),
                 st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
                 st.just(10 ** 400), st.just(object()))

SLOTS = {
    "evaluate.measures": lambda x, v: irmeta.evaluate(x.c, measures=v),
    "evaluate.rel_level": lambda x, v: irmeta.evaluate(x.c, measures="AP", rel_level=v),
    "evaluate.complete": lambda x, v: irmeta.evaluate(x.c, measures="AP", complete=v),
    "evaluate.prior_runs": lambda x, v: irmeta.evaluate(x.c, measures="NRG(prior=list)@5",
                                                        prior_runs=v),
    "Results.matrix": lambda x, v: x.res.matrix(v),
    "Results.aggregate": lambda x, v: x.res.aggregate(v),
    "explain_documents.k": lambda x, v: explain.explain_documents(x.c, x.c.runs[0], k=v),
    "explain_documents.topic": lambda x, v: explain.explain_documents(x.c, x.c.runs[0], v),
    "aggregate_matrix": lambda x, v: aggregate_matrix(x.X, v),
    "gawm.tol": lambda x, v: gawm(x.X, tol=v),
    "compare.level": lambda x, v: stats.pairwise_test(x.X, "paired_t", level=v),
    "compare.pairs": lambda x, v: stats.pairwise_test(x.X, "paired_t", pairs=v),
    "randomisation.trials": lambda x, v: stats.randomisation(x.X, trials=v, seed=0),
    "randomisation.seed": lambda x, v: stats.randomisation(x.X, trials=3, seed=v),
    "rank_correlation.x": lambda x, v: stats.rank_correlation(v, [1, 2, 3]),
    "filter_top_runs.top_fraction": lambda x, v: stats.filter_top_runs(x.c, v),
    "parse_measures": lambda x, v: irmeta.parse_measures(v),
}


@pytest.mark.parametrize("slot", sorted(SLOTS))
def test_junk_raises_irmeta_error_or_succeeds(ctx, slot):
    call = SLOTS[slot]

    @settings(max_examples=examples(40), deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(JUNK)
    def run(value):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                call(ctx, value)
            except IrmetaError:
                pass
            # any other exception type fails the test, with the value Hypothesis found
    run()


def test_floats_that_are_integers_are_not_coerced(ctx):
    # 2.0 is not silently taken as 2 (nor 1.5 as 2): integers are integers
    for value in (2.0, np.float64(2.0)):
        with pytest.raises(IrmetaError, match="max_docs"):
            irmeta.evaluate(ctx.q, ctx.runs, max_docs=value)
    assert irmeta.evaluate(ctx.q, ctx.runs, "AP", max_docs=np.int64(2)).names == ["AP"]
