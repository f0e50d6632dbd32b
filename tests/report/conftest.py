"""Fixtures of the report tests: the demo report is built once per session with small
bootstrap / trial counts (the content, not the statistics, is under test)."""

from __future__ import annotations

import pytest

SMALL = {"discpower_trials": 100, "stability_trials": 100, "alphas": (0.0, 0.5, 1.0)}


@pytest.fixture(scope="session")
def demo_campaign():
    from irmeta.demo import load_demo_campaign
    return load_demo_campaign()


@pytest.fixture(scope="session")
def demo_report(tmp_path_factory, demo_campaign):
    """(CampaignReport, options) of the full demo report, all six sections."""
    from irmeta.demo import demo_groups, demo_paths
    from irmeta.report import ReportOptions, campaign_report
    out = tmp_path_factory.mktemp("demo-report") / "report.html"
    opts = ReportOptions(progress=False, **SMALL)
    paths = demo_paths()
    rep = campaign_report(demo_campaign, out, groups=demo_groups(), options=opts,
                          inputs={"qrels": paths.qrels, "runs": paths.runs,
                                  "groups": paths.groups},
                          command="irmeta report --demo --discpower-trials 100 "
                                  "--stability-trials 100")
    return rep, opts


def synthetic_campaign(runs: int = 100, topics: int = 30, depth: int = 100, seed: int = 0):
    """A seeded synthetic campaign (graded qrels, ``runs`` runs of ``depth`` documents in
    groups of five) for the tests at scale: every run ranks a shared pool of
    ``3 * depth`` documents by latent relevance times its own quality plus noise.
    Returns ``(campaign, groups)``."""
    import numpy as np

    import irmeta
    rng = np.random.default_rng(seed)
    pool = 3 * depth
    qrels, run_dict = {}, {}
    latent = rng.normal(size=(topics, pool))
    for t in range(topics):
        order = np.argsort(-latent[t])
        judged = order[: depth]
        grades = np.digitize(latent[t, judged], [0.8, 1.4, 2.0])
        qrels[f"t{t + 1:03d}"] = {f"d{t}-{d}": int(g) for d, g in zip(judged, grades)}
    quality = np.sort(rng.uniform(0.2, 1.5, size=runs))[::-1]
    for r in range(runs):
        name = f"g{r % 20:02d}-run{r:03d}"
        per = {}
        for t in range(topics):
            score = quality[r] * latent[t] + rng.normal(size=pool)
            top = np.argsort(-score)[:depth]
            per[f"t{t + 1:03d}"] = {f"d{t}-{d}": float(depth - i) for i, d in enumerate(top)}
        run_dict[name] = per
    campaign = irmeta.load_campaign(qrels, run_dict)
    return campaign, {r: r.split("-")[0] for r in campaign.runs}


@pytest.fixture(scope="session")
def report100(tmp_path_factory):
    """The report of a seeded 100-run synthetic campaign (innovation and trust skipped:
    the scale of the page, not the statistics, is under test)."""
    from irmeta.report import ReportOptions, campaign_report
    campaign, groups = synthetic_campaign()
    out = tmp_path_factory.mktemp("report100") / "report.html"
    opts = ReportOptions(progress=False, discpower_trials=50, stability_trials=50, ci_trials=500,
                         alphas=(0.0, 1.0), skip=frozenset({"innovation", "trust"}))
    return campaign_report(campaign, out, groups=groups, options=opts,
                           command="irmeta report (synthetic, 100 runs)")
