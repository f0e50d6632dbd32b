"""TaSC's errors name TaSC, the measure the user wrote (issue 22, item 9): TaSC is computed
through an NRG twin that shares its prior plan, and its messages said ``NRG(...)``."""

from __future__ import annotations

import pytest

import irmeta
from irmeta.errors import CampaignError

QRELS = {"1": {"a": 1, "b": 1}, "2": {"c": 2}}
RUNS = {"x": {"1": {"a": 2.0}, "2": {"c": 1.0}}, "y": {"1": {"b": 1.0}, "2": {"d": 1.0}}}


@pytest.mark.parametrize("measure, kwargs, says", [
    ("TaSC(prior=list)@5", {}, "prior=list needs an explicit prior set"),
    ("TaSC(prior=list)@5", {"prior_runs": ["zz"]}, "prior runs not in the campaign: zz"),
    ("TaSC(prior=best_per_group)@5", {}, "prior=best_per_group needs a run -> group"),
    ("TaSC(prior=best_per_group)", {"groups": {"x": "g"}}, "no group for run(s) y"),
])
@pytest.mark.parametrize("where", [{}, {"shard_topics": 1}], ids=["memory", "shards"])
def test_tasc_errors_name_tasc(tmp_path, measure, kwargs, says, where):
    qrels, runs = QRELS, RUNS
    if where:                                   # sharded evaluation reads files
        qrels = tmp_path / "q"
        qrels.write_text("".join(f"{t} 0 {d} {g}\n" for t, j in QRELS.items()
                                 for d, g in j.items()))
        runs = []
        for name, run in RUNS.items():
            runs.append(tmp_path / name)
            runs[-1].write_text("".join(f"{t} Q0 {d} 1 {s} {name}\n" for t, r in run.items()
                                        for d, s in r.items()))
    with pytest.raises(CampaignError) as info:
        irmeta.evaluate(qrels, runs, [measure], **kwargs, **where)
    text = str(info.value)
    assert text.startswith(measure + ": ") and says in text
    assert "NRG" not in text


def test_nrg_errors_still_name_nrg():
    with pytest.raises(CampaignError, match=r"^NRG\(prior=list\)@5: prior=list needs"):
        irmeta.evaluate(QRELS, RUNS, ["NRG(prior=list)@5"])
