"""Sharded and in-memory evaluation give bit-identical per-topic values (issue 13).

Every registered measure (one parameterisation per family, as in
``tests/unit/test_kernel_blocks.py``) plus the prior sets that need the whole campaign
(``best_per_group``: two passes), on random campaigns whose run files are not sorted by
topic, for shards of 1, 2, 4 topics and one shard; then the options that change what a
shard reads (``complete``, ``rel_level``, ``max_docs``, ``float32``, ``names``, a rarity
reference campaign) and DL21.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irmeta
from irmeta.errors import CampaignError, InputError, ParameterError
from irmeta.measures import registry
from irmeta.options import WorkOptions
from irmeta.shards import plan as planning
from irmeta.shards.route import sharded_plan
from irmeta.shards.summary import CampaignSummary
from tests.quick import sampled
from tests.shards.conftest import write_campaign
from tests.unit.test_kernel_blocks import _every_measure

CONTEXT = ["NRG(prior=best_per_group)@10", "TaSC(prior=best_per_group)@5",
           "NRG(prior=earlier)@10", "NRG(prior=list)", "TaSC(prior=list)@10",
           "NRG(base=RBP,prior=best_per_group,rel=2)"]
GROUPS = {"run0": "a", "run1": "a", "run2": "b", "run3": "c"}


def _same(whole, sharded) -> None:
    assert sharded.runs == whole.runs and sharded.topics == whole.topics
    assert sharded.names == whole.names
    for j, name in enumerate(whole.names):
        np.testing.assert_array_equal(whole.values[:, j], sharded.values[:, j], err_msg=name)
    np.testing.assert_array_equal(whole.evaluated, sharded.evaluated)


def _write_diversity(folder: Path, seed: int) -> tuple[str, str, list[str]]:
    """(subtopic qrels path, ad hoc qrels path, run paths) of a random diversity campaign,
    run lines in random order."""
    from tests.oracles.test_diversity_oracle import random_diversity
    frame, runs, _ = random_diversity(seed, n_runs=4, n_topics=9, n_docs=30)
    rng = np.random.default_rng(seed)
    sub = folder / "subtopics.txt"
    sub.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in frame.itertuples(index=False)))
    adhoc = folder / "adhoc.txt"      # other ad hoc judgments than the derived ones
    adhoc.write_text("".join(f"{t} 0 {d} {int(rng.integers(0, 3))}\n"
                             for t, d in frame[["query_id", "doc_id"]].drop_duplicates()
                             .itertuples(index=False)))
    paths = []
    for name, topics in runs.items():
        lines = [f"{t} Q0 {d} 0 {x} {name}\n" for t, docs in topics.items()
                 for d, x in docs.items()]
        rng.shuffle(lines)
        path = folder / f"{name}.txt"
        path.write_text("".join(lines))
        paths.append(str(path))
    return str(sub), str(adhoc), paths


DIVERSITY = [m for m in _every_measure()
             if registry.get(m.split("@")[0].split("(")[0]).family == "diversity"]


@pytest.mark.parametrize("seed", sampled([3, 4], keep=1))
def test_diversity_measures_are_identical_in_shards(tmp_path, seed):
    """--subtopic-qrels shard by shard: read once by the driver, laid out per shard."""
    sub, adhoc, runs = _write_diversity(tmp_path, seed)
    measures = DIVERSITY + ["AP", "alpha_nDCG(alpha=0.3)@5"]
    assert len(DIVERSITY) >= 8
    for qrels in (None, adhoc):       # qrels derived from the subtopics, or given
        whole = irmeta.evaluate(qrels, runs, measures, subtopic_qrels=sub, complete=True)
        for size in (1, 2, 4):
            sharded = irmeta.evaluate(qrels, runs, measures, subtopic_qrels=sub,
                                      complete=True, shard_topics=size)
            assert isinstance(sharded.campaign, CampaignSummary)
            _same(whole, sharded)


def test_cli_subtopics_print_the_same_in_shards(tmp_path, capsys):
    from irmeta.cli.main import main
    sub, adhoc, runs = _write_diversity(tmp_path, 5)
    for qrels in (sub, adhoc):        # the subtopic file given as QRELS too, or ad hoc qrels
        args = ["eval", qrels, *runs, "--subtopic-qrels", sub, "-m", "alpha_nDCG@10",
                "-m", "ERR_IA@5", "-m", "AP", "-q"]
        assert main(args) == 0
        expected = capsys.readouterr().out
        assert main([*args, "--shard-topics", "2"]) == 0
        assert capsys.readouterr().out == expected and expected


def test_a_subtopic_judged_twice_names_its_lines_in_a_shard(tmp_path):
    sub = tmp_path / "div.qrels"
    sub.write_text("1 1 a 1\n2 1 b 1\n3 1 c 1\n3 2 c 1\n3 1 c 0\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 2.0 r\n2 Q0 b 1 1.0 r\n3 Q0 c 1 1.0 r\n")
    with pytest.raises(InputError, match="judged twice for subtopic '1'") as err:
        irmeta.evaluate(None, [str(run)], ["alpha_nDCG@5"], subtopic_qrels=str(sub),
                        shard_topics=1)
    assert "div.qrels:5" in str(err.value) and "also on line 3" in str(err.value)


@pytest.mark.filterwarnings("ignore:.*not in the qrels:UserWarning")
@pytest.mark.filterwarnings("ignore:Twist.*undefined:UserWarning")
@pytest.mark.parametrize("seed", sampled([0, 1], keep=1))
def test_every_measure_is_identical_in_shards(tmp_path, seed):
    qrels, runs = write_campaign(tmp_path, seed)
    # the diversity measures need subtopic qrels: test_diversity_measures_are_identical...
    measures = [m for m in _every_measure()
                if registry.get(m.split("@")[0].split("(")[0]).family != "diversity"] + CONTEXT
    kwargs = dict(groups=GROUPS, prior_runs=["run1", "run3"])
    whole = irmeta.evaluate(qrels, runs, measures, **kwargs)
    assert not isinstance(whole.campaign, CampaignSummary)
    for size in (1, 2, 4, 100):
        sharded = irmeta.evaluate(qrels, runs, measures, shard_topics=size, **kwargs)
        assert isinstance(sharded.campaign, CampaignSummary)
        _same(whole, sharded)
    pd_whole, pd_sharded = whole.aggregate(), sharded.aggregate()
    assert pd_whole.equals(pd_sharded)
    assert whole.to_frame().equals(sharded.to_frame())
    assert whole.matrix("AP").equals(sharded.matrix("AP"))
    from irmeta.aggregate import aggregate_matrix
    for name in ("AP", "nDCG", "Judged"):   # HITS needs a complete matrix (no text measure)
        assert aggregate_matrix(whole.matrix(name), "hits").equals(
            aggregate_matrix(sharded.matrix(name), "hits"))


@pytest.mark.filterwarnings("ignore:.*not in the qrels:UserWarning")
@pytest.mark.parametrize("options", [
    {"complete": True}, {"rel_level": 2}, {"max_docs": 5}, {"float32": True},
    {"names": ["a", "b", "c", "d"]}, {"dedupe": True},
    {"judged_only": True}, {"collection_size": 5000},
])
def test_options_give_identical_values(tmp_path, options):
    qrels, runs = write_campaign(tmp_path, 3)
    measures = ["AP", "nDCG@10", "P@5", "bpref", "NRG@10", "AP_rare(alpha=1)@10", "num_ret",
                "utility.1,-1,0,1", "infAP", "unj_5"]
    whole = irmeta.evaluate(qrels, runs, measures, **options)
    _same(whole, irmeta.evaluate(qrels, runs, measures, shard_topics=2, **options))
    if "judged_only" in options or "collection_size" in options:   # the option is read
        assert not np.array_equal(whole.means, irmeta.evaluate(qrels, runs, measures).means)


@pytest.mark.filterwarnings("ignore:.*not in the qrels:UserWarning")
def test_a_reference_campaign_serves_every_shard(tmp_path):
    qrels, runs = write_campaign(tmp_path, 4, n_runs=5)
    reference = irmeta.load_campaign(qrels, runs[3:])
    measures = ["P_rare(alpha=0.5)@10", "AP_rare(alpha=1)@20"]
    whole = irmeta.evaluate(qrels, runs[:3], measures, reference=reference)
    _same(whole, irmeta.evaluate(qrels, runs[:3], measures, reference=reference,
                                 shard_topics=3))


@pytest.mark.slow
@pytest.mark.shared_data
def test_dl21_is_identical_in_shards(dl21):
    qrels, runs = dl21
    runs = [str(p) for p in runs]
    groups = {}
    whole = irmeta.load_campaign(qrels, runs, warn_dropped=False)
    for k, name in enumerate(whole.runs):
        groups[name] = f"g{k % 9}"
    measures = ["AP", "nDCG@10", "NRG@10", "P_rare(alpha=0.5)@100", "Twist@1000",
                "NRG(prior=best_per_group)@10", "bpref", "RR"]
    with pytest.warns(UserWarning, match="not in the qrels"):
        base = irmeta.evaluate(qrels, runs, measures, groups=groups)
    with pytest.warns(UserWarning, match="not in the qrels"):
        sharded = irmeta.evaluate(qrels, runs, measures, groups=groups, shard_topics=13)
    _same(base, sharded)
    assert sharded.campaign.shards == 5


def _same_error(qrels, runs, shard_topics: int) -> str:
    """The message of the InputError of an in-memory evaluation, checked to be the one of
    a sharded evaluation too."""
    with pytest.raises(InputError) as whole:
        irmeta.evaluate(qrels, runs, ["AP"])
    with pytest.raises(InputError) as sharded:
        irmeta.evaluate(qrels, runs, ["AP"], shard_topics=shard_topics)
    assert str(sharded.value) == str(whole.value)
    return str(whole.value)


def test_a_bad_line_gives_the_message_of_an_in_memory_evaluation(tmp_path):
    qrels, runs = write_campaign(tmp_path, 5)
    path = Path(runs[2])
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(7, "t03 Q0 dx 0 abc run2\n")
    path.write_text("".join(lines))
    assert ":8" in _same_error(qrels, runs, shard_topics=2)


def test_a_repeated_document_names_its_file_lines_in_a_shard(tmp_path):
    qrels, runs = write_campaign(tmp_path, 6)
    path = Path(runs[1])
    lines = path.read_text().splitlines(keepends=True)
    first = next(line for line in lines if not line.startswith("zz"))
    lines.append(first)
    path.write_text("".join(lines))
    assert "appears twice" in _same_error(qrels, runs, shard_topics=1)


def test_small_campaigns_take_the_in_memory_path(tmp_path):
    qrels, runs = write_campaign(tmp_path, 7)
    assert sharded_plan(qrels, runs) is None
    assert sharded_plan(qrels, runs, WorkOptions(memory_budget="1M")) is None  # ~70 KB
    plan = planning.plan(runs, budget=10_000)
    assert plan.sharded and plan.shard_topics == 0 and plan.estimated_bytes > 10_000
    assert planning.topics_per_shard(plan, 1000) >= 1


def test_budget_sizes_and_shard_sizes():
    assert planning.parse_size("4G") == 4 << 30
    assert planning.parse_size("512MiB") == 512 << 20
    assert planning.parse_size(3 << 20) == 3 << 20
    for bad in ("lots", "1k", True, 1.5, "-2G"):
        with pytest.raises(ParameterError):
            planning.parse_size(bad)
    plan = planning.ShardPlan(budget=1 << 30, estimated_bytes=4 << 30, shard_topics=0)
    assert planning.topics_per_shard(plan, 4000) == 1000
    assert planning.topics_per_shard(plan, 4000, workers=2) == 500
    assert planning.available_memory() > 0


def test_shard_arguments_are_checked(tmp_path):
    qrels, runs = write_campaign(tmp_path, 8)
    campaign = irmeta.load_campaign(qrels, runs, warn_dropped=False)
    with pytest.raises(ParameterError, match="already in memory"):
        irmeta.evaluate(campaign, measures=["AP"], shard_topics=2)
    with pytest.raises(ParameterError, match="reads files"):
        irmeta.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["AP"], shard_topics=2)
    with pytest.raises(ParameterError, match="shard_topics"):
        irmeta.evaluate(qrels, runs, ["AP"], shard_topics=0)
    with pytest.raises(ParameterError, match="memory_budget"):
        irmeta.evaluate(qrels, runs, ["AP"], memory_budget="huge")


def test_analyses_over_the_campaign_topic_set_refuse_an_empty_one(tmp_path):
    qrels, runs = write_campaign(tmp_path, 9)
    with pytest.warns(UserWarning, match="not in the qrels"):
        res = irmeta.evaluate(qrels, runs, ["AP"], rel_level=9, shard_topics=3)
    with pytest.raises(CampaignError, match="no qrels topic has a relevant document"):
        res.matrix("AP")


def test_blank_lines_before_a_repeated_document_count_in_its_line(tmp_path):
    """Spill files keep data rows; the blank lines Arrow skipped are found by re-reading
    the run file only when the error needs a line number."""
    qrels, runs = write_campaign(tmp_path, 12)
    path = Path(runs[0])
    lines = path.read_text().splitlines(keepends=True)
    first = next(line for line in lines if not line.startswith("zz"))
    path.write_text("".join(lines[:3] + ["\n", "\n"] + lines[3:] + ["\n", first]))
    with pytest.raises(InputError) as whole:
        irmeta.evaluate(qrels, runs, ["AP"])
    with pytest.raises(InputError) as sharded:
        irmeta.evaluate(qrels, runs, ["AP"], shard_topics=4)
    assert str(sharded.value) == str(whole.value)
    assert f":{len(lines) + 4}" in str(whole.value)
