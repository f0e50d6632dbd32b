"""Per-document explanations and unique contributions: API and `irmeta explain`."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.cli.main import main
from irmeta.errors import CampaignError, ParameterError
from irmeta.explain import DOC_COLUMNS, explain_documents, unique_contributions, unique_documents
from tests.context import reference as ref
from tests.context.test_nrg_table1 import QRELS, RUNS, files  # noqa: F401 (fixture)


@pytest.fixture(scope="module")
def table1():
    return irmeta.load_campaign(QRELS, RUNS)


def test_table1_explanation(table1):
    docs = explain_documents(table1, "R1", "q1", k=10, nrg="NRG@10")
    assert list(docs.columns) == DOC_COLUMNS
    assert docs["docid"].tolist() == ["A", "E", "F", "J"]
    assert docs["rank"].tolist() == [1, 5, 6, 10]
    assert docs["retrieved_by"].tolist() == [3] * 4 and (docs["rarity"] == 0).all()
    # E is at rank 1 of R2 and J at rank 1 of R3: seen = 1, nothing left to gain
    assert docs["residual_gain"].tolist()[1] == 0.0 and docs["residual_gain"].tolist()[3] == 0.0
    # A: R2 rank 5, R3 rank 10 -> 4 * (1 - 1/log2 6) * (1 - 1/log2 11)
    a = 4 * (1 - 1 / np.log2(6)) * (1 - 1 / np.log2(11))
    assert docs["residual_gain"].iloc[0] == pytest.approx(a, abs=1e-15)
    # R1 retrieves every judged document: DCG of its residual gains over the DCG of the
    # same gains sorted (the ideal) is the Table 1 value
    every = explain_documents(table1, "R1", "q1", k=10, nrg="NRG@10", relevant_only=False)
    disc = np.log2(np.arange(2, 12))
    raw = (every["residual_gain"].to_numpy() / disc).sum()
    ideal = (np.sort(every["residual_gain"].to_numpy())[::-1] / disc).sum()
    assert round(raw / ideal, 4) == 0.8417


def test_all_docs_and_unjudged(table1):
    docs = explain_documents(table1, "R3", k=4, nrg=None, relevant_only=False)
    assert docs["docid"].tolist() == ["J", "I", "H", "G"]
    assert docs["prior_product"].isna().all()
    assert docs["relevant"].tolist() == [True, False, False, False]


def test_random_campaign_rarity_and_unique():
    qrels, runs = ref.random_campaign(11, n_runs=5)
    campaign = irmeta.load_campaign(qrels, runs)
    rankings = ref.rankings_of(campaign)
    table = unique_contributions(campaign, 8, per_topic=True)
    for run in campaign.runs:
        docs = explain_documents(campaign, run, k=8, depth=5, nrg=None)
        for row in docs.itertuples():
            s_d, S = ref.rarity_counts(rankings, row.topic, run, row.docid, 5)
            assert (row.retrieved_by, row.S) == (s_d, S)
        for topic in campaign.topics:
            top = rankings[run][topic][:8]
            want = sum(1 for d in top if qrels[topic].get(d, -9) >= 1 and
                       ref.rarity_counts(rankings, topic, run, d, 8)[0] == 1)
            got = table[(table["run"] == run) & (table["topic"] == topic)]["unique"].item()
            assert got == want


def test_unique_documents_are_the_counted_ones():
    """unique_documents lists exactly the documents a slow loop finds, with their rank,
    id and grade, and as many as unique_contributions counts."""
    qrels, runs = ref.random_campaign(13, n_runs=4)
    campaign = irmeta.load_campaign(qrels, runs)
    rankings = ref.rankings_of(campaign)
    docs = unique_documents(campaign, 6)
    want = []
    for run in campaign.runs:
        for topic in campaign.topics:
            for rank, d in enumerate(rankings[run][topic][:6], start=1):
                grade = qrels[topic].get(d, -9)
                if grade >= 1 and ref.rarity_counts(rankings, topic, run, d, 6)[0] == 1:
                    want.append((run, topic, rank, d, grade))
    assert want and list(docs.itertuples(index=False, name=None)) == want
    assert len(docs) == unique_contributions(campaign, 6)["unique"].sum()
    assert list(docs.columns) == ["run", "topic", "rank", "docid", "grade"]


def test_reference_set_counts():
    qrels, runs = ref.random_campaign(5, n_runs=3)
    campaign = irmeta.load_campaign(qrels, runs)
    reference = irmeta.load_campaign(qrels, {"ref": runs["run0"]})
    docs = explain_documents(campaign, "run0", k=10, reference=reference, nrg=None)
    # every document of run0 is also in the single reference run: S_d = 2 of S = 2
    assert (docs["S"] == 2).all() and (docs["retrieved_by"] == 2).all()
    uniq = unique_contributions(campaign, 10, reference=reference)
    assert uniq.loc["run0", "unique"] == 0


def test_errors(table1):
    with pytest.raises(CampaignError, match="no run named"):
        explain_documents(table1, "R9")
    with pytest.raises(CampaignError, match="topic"):
        explain_documents(table1, "R1", "q9")
    with pytest.raises(ParameterError, match="k"):
        explain_documents(table1, "R1", k=0)
    with pytest.raises(ParameterError, match="nrg"):
        explain_documents(table1, "R1", nrg="nDCG@10")
    with pytest.raises(ParameterError, match="k"):
        unique_contributions(table1, -3)
    with pytest.raises(ParameterError, match="unique_documents: k"):
        unique_documents(table1, 0)
    with pytest.raises(ParameterError, match="unique_documents: campaign must be a Campaign"):
        unique_documents("qrels.txt", 10)


def test_cli_explain_documents(files, capsys):  # noqa: F811
    qrels, paths = files
    assert main(["explain", qrels, *paths.values(), "--run", "R1", "--topic", "q1", "-k", "10",
                 "--nrg", "NRG@10", "--format", "tsv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t")
    assert frame["docid"].tolist() == ["A", "E", "F", "J"]
    assert frame["retrieved_by"].tolist() == [3] * 4


def test_cli_explain_unique(files, capsys):  # noqa: F811
    qrels, paths = files
    assert main(["explain", qrels, paths["R1"], paths["R3"], "-k", "5"]) == 0
    out = capsys.readouterr().out
    lines = [line.split() for line in out.splitlines()]
    assert lines[0][:2] == ["run", "unique"]
    # top 5 of R1: A B C D E (A, E relevant); of R3: J I H G F (J, F relevant) - disjoint
    assert {row[0]: int(row[1]) for row in lines[1:]} == {"R1": 2, "R3": 2}
    assert main(["explain", qrels, paths["R1"], "--topic", "q1"]) == 2
