"""Fixtures of the report tests: the demo report is built once per session with small
bootstrap / trial counts (the content, not the statistics, is under test)."""

from __future__ import annotations

import pytest

SMALL = {"bootstrap": 100, "trials": 100, "alphas": (0.0, 0.5, 1.0)}


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
                          command="irmeta report --demo --bootstrap 100 --trials 100")
    return rep, opts
