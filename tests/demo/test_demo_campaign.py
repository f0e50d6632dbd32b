"""The demo campaign shipped in irmeta.demo: reproducible, well formed, and shaped as
documented in docs/demo-campaign.md (the properties the new measures need)."""

from __future__ import annotations

import gzip
import importlib.util
import sys
import zlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import irmeta
from irmeta.data.campaign import NOT_IN_QRELS
from irmeta.demo import DemoPaths, demo_groups, demo_paths, load_demo_campaign

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "make_demo_campaign.py"


def _generator():
    if not SCRIPT.exists():
        pytest.skip(f"generator script not available: {SCRIPT}")
    name = "make_demo_campaign_under_test"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SCRIPT)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module          # dataclasses need the module registered
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="module")
def paths() -> DemoPaths:
    return demo_paths()


@pytest.fixture(scope="module")
def campaign():
    return load_demo_campaign()


@pytest.fixture(scope="module")
def results(campaign):
    return irmeta.evaluate(campaign, None, ["AP", "P@10", "R@100"])


def _shipped_files(data: Path) -> list[Path]:
    return sorted(p for p in data.rglob("*") if p.is_file())


# --------------------------------------------------------------------------- reproducibility

@pytest.mark.slow
def test_regeneration_is_byte_identical(tmp_path, paths):
    gen = _generator()
    data = paths.qrels.parent
    written = gen.generate(tmp_path)
    rel_written = sorted(p.relative_to(tmp_path) for p in written)
    assert rel_written == [p.relative_to(data) for p in _shipped_files(data)]
    zlib_ng = "ng" in zlib.ZLIB_RUNTIME_VERSION.lower()
    for rel in rel_written:
        new, old = (tmp_path / rel).read_bytes(), (data / rel).read_bytes()
        if rel.suffix == ".gz":
            assert gzip.decompress(new) == gzip.decompress(old), rel
            # header: no mtime (bytes 4-7), no file name flag: same zlib -> same bytes
            assert new[3] == 0 and new[4:8] == b"\0\0\0\0", rel
            if zlib_ng:      # zlib-ng deflates differently; content equality is the contract
                continue
        assert new == old, f"{rel} differs from the shipped file; rerun the script"


# --------------------------------------------------------------------------- API and files

def test_paths_are_inside_the_installed_package(paths):
    package = Path(irmeta.__file__).resolve().parent
    assert paths.qrels.resolve().is_relative_to(package / "demo" / "data")
    assert len(paths.runs) == 30
    assert paths.runs == sorted(paths.runs)
    assert all(p.name.endswith(".txt.gz") and p.is_file() for p in paths.runs)
    assert paths.groups.is_file() and paths.readme.is_file()
    assert "SIMULATED" in paths.readme.read_text()


def test_package_data_is_small(paths):
    total = sum(p.stat().st_size for p in _shipped_files(paths.qrels.parent))
    assert total < 1_400_000, f"demo data grew to {total} bytes"


def test_groups_cover_every_run(campaign):
    groups = demo_groups()
    assert sorted(groups) == sorted(campaign.runs)
    assert len(set(groups.values())) == 9
    assert all(run.split("-", 1)[0] == group for run, group in groups.items())
    res = irmeta.evaluate(campaign, None, ["P@10"], groups=groups)
    assert len(res.runs) == 30


def test_load_demo_campaign_shape(campaign):
    assert campaign.num_runs == 30 and campaign.num_topics == 50
    assert campaign.topics == tuple(str(t) for t in range(301, 351))
    assert campaign.depth == 100
    assert np.all(campaign.length == 100)
    grades = campaign.judged.grades
    assert set(np.unique(grades)) == {0, 1, 2, 3}


def test_load_demo_campaign_passes_options():
    assert load_demo_campaign(max_docs=10).depth == 10


def test_run_files_are_standard_trec_in_trec_eval_order(paths, campaign):
    """Six columns, Q0, tag = run name, ranks 1..100 per topic; the rank column agrees
    with trec_eval's order (score desc, docid desc), so pooling by rank is well defined."""
    path = paths.runs[0]
    lines = [ln.split() for ln in gzip.decompress(path.read_bytes()).decode().splitlines()]
    assert all(len(f) == 6 and f[1] == "Q0" for f in lines)
    name = path.name.removesuffix(".txt.gz")
    assert {f[5] for f in lines} == {name}
    r = campaign.run_index(name)
    for t, topic in enumerate(campaign.topics):
        rows = [f for f in lines if f[0] == topic]
        assert [int(f[3]) for f in rows] == list(range(1, 101))
        assert [f[2] for f in rows] == campaign.ranking(r, t)


def test_qrels_format(paths):
    rows = [ln.split() for ln in paths.qrels.read_text().splitlines()]
    assert all(len(f) == 4 and f[1] == "0" and f[3] in "0123" for f in rows)


# --------------------------------------------------------------------------- realism

def test_depth_pooling(campaign):
    """Every document in a run's top 20 is judged; deeper ones are often unjudged."""
    top = campaign.grades[:, :, :20]
    deep = campaign.grades[:, :, 20:]
    assert not np.any(top == NOT_IN_QRELS)
    assert 0.2 < np.mean(deep == NOT_IN_QRELS) < 0.8


def test_topics_with_very_few_relevant_documents(campaign):
    nrel = campaign.num_rel(1)
    assert nrel.min() >= 1
    assert 2 <= np.sum(nrel <= 3) <= 4
    assert np.median(nrel) > 15


def test_map_spread(results):
    means = results.aggregate()["AP"]
    assert means.min() < 0.1 and means.max() > 0.4
    assert np.sum(means < 0.1) == 2          # two weak baselines


def _unique_relevant(campaign) -> np.ndarray:
    codes = campaign.doc_codes
    valid = codes >= 0
    n_runs = np.bincount(codes[valid], minlength=campaign.num_codes)
    once = np.zeros(codes.shape, dtype=bool)
    once[valid] = n_runs[codes[valid]] == 1
    return (once & (campaign.grades >= 1)).sum(axis=(1, 2))


def test_rare_document_specialists(campaign):
    unique = dict(zip(campaign.runs, _unique_relevant(campaign)))
    specialists = ["xplH-rare", "specE-entity", "specE-kg", "expD-doc2query"]
    others = [u for r, u in unique.items() if r not in specialists]
    assert min(unique[s] for s in specialists) > max(others)
    assert unique["xplH-rare"] >= 20
    assert unique["fedF-rrfall"] == 0          # fusion finds nothing new


def test_shared_candidate_pool(campaign):
    """Most ranked lines are documents that at least 10 of the 30 runs retrieved."""
    codes = campaign.doc_codes
    n_runs = np.bincount(codes[codes >= 0], minlength=campaign.num_codes)
    assert np.mean(n_runs[codes[codes >= 0]] >= 10) > 0.5


def test_precision_and_recall_oriented_runs(results):
    means = results.aggregate()
    for run in ("rrkC-monot5top20", "rrkC-monot5top40"):
        assert means.loc[run, "P@10"] >= means["P@10"].quantile(0.9)
    assert means.loc["rrkC-monot5top20", "R@100"] < means["R@100"].median()
    for run in ("expD-prfwide", "okI-wideprf"):
        assert means.loc[run, "R@100"] >= means["R@100"].quantile(0.9)
        assert means.loc[run, "P@10"] < means["P@10"].median()


@pytest.mark.slow
def test_runs_within_a_group_overlap_more(campaign):
    groups = demo_groups()
    grp = np.array([groups[r] for r in campaign.runs])
    same = (grp[:, None] == grp[None, :]) & ~np.eye(len(grp), dtype=bool)
    jac = np.zeros((campaign.num_runs, campaign.num_runs))
    for t in range(campaign.num_topics):          # loop over topics only
        codes = campaign.doc_codes[:, t]
        members = np.zeros((campaign.num_runs, campaign.num_codes), dtype=np.float32)
        members[np.repeat(np.arange(campaign.num_runs), codes.shape[1]), codes.ravel()] = 1
        both = members @ members.T
        size = members.sum(axis=1)
        jac += both / (size[:, None] + size[None, :] - both)
    assert jac[same].mean() > jac[grp[:, None] != grp[None, :]].mean() + 0.1


def test_ties_in_scores(paths):
    def tied_share(name):
        path = paths.qrels.parent / "runs" / f"{name}.txt.gz"
        rows = [ln.split() for ln in gzip.decompress(path.read_bytes()).decode().splitlines()]
        keys = [(f[0], f[4]) for f in rows]
        counts = Counter(keys)
        return np.mean([counts[k] > 1 for k in keys])
    assert tied_share("uniG-boolean") > 0.9
    assert 0.001 < tied_share("lexA-bm25") < 0.1
