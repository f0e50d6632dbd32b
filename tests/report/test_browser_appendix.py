"""A run's appendix page in a real browser (headless Chromium, as
``tests/report/test_browser.py``): it loads without console errors, its figure
decodes, nothing scrolls sideways at a phone's 390 px, axe-core finds no violation, and
its link back reaches the report. Skips as ``test_browser.py`` does without Chromium."""

from __future__ import annotations

import pytest

from tests.report.test_browser import _no_sideways_scroll, _open, browser  # noqa: F401

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def appendix_page(demo_report):
    rep, _ = demo_report
    pages = sorted((rep.path.parent / "report_files" / "runs").glob("*.html"))
    assert pages
    return pages[0]


def test_appendix_page_loads_fits_a_phone_and_has_no_axe_violations(browser,  # noqa: F811
                                                                     appendix_page,
                                                                     tmp_path):
    from axe_playwright_python.sync_playwright import Axe
    pg = _open(browser, appendix_page, width=390, height=844)
    try:
        assert [m for m in pg.messages if m[0] in ("error", "pageerror")] == []
        decoded = pg.evaluate("Array.from(document.images).map(i => i.complete && "
                              "i.naturalWidth > 0)")
        assert decoded and all(decoded)
        assert not [u for u in pg.requests if not u.startswith(("file:", "data:"))]
        results = Axe().run(pg)
        assert results.violations_count == 0, results.generate_report()
        pg.click("a[href$='report.html']")
        pg.wait_for_load_state("load")
        assert pg.url.endswith("/report.html")
    finally:
        pg.close()
    _no_sideways_scroll(browser, appendix_page, tmp_path / "appendix390.png")


def test_export_index_page_has_no_axe_violations(browser, demo_report,  # noqa: F811
                                                 tmp_path):
    """The index page of a group's exported folder (``--export-groups``)."""
    from axe_playwright_python.sync_playwright import Axe

    from irmeta.report.export import export_groups
    done = export_groups(demo_report[0], tmp_path / "mail")
    index = done.groups[0][1] / "index.html"
    pg = _open(browser, index, width=390, height=844)
    try:
        assert [m for m in pg.messages if m[0] in ("error", "pageerror")] == []
        results = Axe().run(pg)
        assert results.violations_count == 0, results.generate_report()
        pg.click("a[href^='./runs/']")
        pg.wait_for_load_state("load")
        assert "/runs/run-" in pg.url
    finally:
        pg.close()
    _no_sideways_scroll(browser, index, tmp_path / "index390.png")
