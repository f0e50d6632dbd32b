"""Links to the files a page writes are safe relative URLs whatever the output is called
(issue 22, item 9): ``-o "javascript:alert(1)%0a.html"`` made every file link of the page
``javascript:alert(1)%0a_files/...``, which a browser runs as script."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pandas as pd
import pytest

from irmeta.report.html import ReportWriter, Row, file_href

#: https links a page may hold (papers, the project); every other link is to its own files
ALLOWED_HOSTS = {"doi.org", "github.com", "trec.nist.gov", "arxiv.org", "dl.acm.org"}

NAMES = ["javascript:alert(1)%0a.html", "r.html", "a b#c?d&e.html", "data:text%2Chtml,x.html",
         "vbscript:x\n.html", "//evil.example/x.html".replace("/", "_"), "ünï.html"]


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append((tag, name, value))


def links(page: str) -> list[tuple[str, str, str]]:
    parser = _Links()
    parser.feed(page)
    return parser.links


def check_link(tag: str, attr: str, url: str, folder: Path) -> None:
    """An in-page anchor, an embedded PNG, an allowed https link, or ``./`` + a quoted
    path (no scheme, no host) to a file that exists next to the page."""
    parts = urlsplit(url)
    if url.startswith("#"):
        return
    if tag == "img" and attr == "src":
        assert url.startswith("data:image/png;base64,"), url
        return
    if parts.scheme:
        assert parts.scheme == "https" and parts.netloc in ALLOWED_HOSTS, url
        return
    assert url.startswith("./") and not parts.netloc and not parts.query, url
    assert not parts.fragment, url
    assert (folder / unquote(parts.path)).is_file(), url


@pytest.mark.parametrize("name", NAMES)
def test_every_link_of_a_page_is_safe_and_points_at_its_file(tmp_path, name):
    out = tmp_path / name
    w = ReportWriter(out, title="links", archive=True)
    sec = w.section("s", "Section")
    png = w.assets / "fig.png"
    png.write_bytes(b"\x89PNG not really")
    (w.assets / "fig.svg").write_text("<svg/>")
    sec.add(Row([w.table("t", pd.DataFrame({"run": ["a"], "v": [0.5]}))]),
            w.figure_from_files("fig", [png, w.assets / "fig.svg"], caption="c"))
    page = w.render().read_text(encoding="utf-8")
    found = links(page)
    assert sum(url.startswith("./") for _, _, url in found) >= 4   # TSV, PNG, SVG, zip
    for tag, attr, url in found:
        check_link(tag, attr, url, tmp_path)


def test_file_href_quotes_and_never_makes_a_scheme():
    assert file_href("r_files/t.tsv") == "./r_files/t.tsv"
    href = file_href("javascript:alert(1)%0a_files/t.tsv")
    assert href == "./javascript%3Aalert%281%29%250a_files/t.tsv"
    assert urlsplit(href).scheme == "" and unquote(href[2:]).startswith("javascript:")


def test_check_link_refuses_the_old_links(tmp_path):
    """The checker above fails on what the page held before the fix."""
    (tmp_path / "javascript:alert(1)%0a_files").mkdir()
    (tmp_path / "javascript:alert(1)%0a_files" / "t.tsv").write_text("x")
    for bad in ["javascript:alert(1)%0a_files/t.tsv", "r_files/t.tsv", "//host/x",
                "https://evil.example/x"]:
        with pytest.raises(AssertionError):
            check_link("a", "href", bad, tmp_path)


@pytest.mark.slow
def test_every_link_of_the_demo_report_is_safe(demo_report):
    rep, _ = demo_report
    found = links(rep.path.read_text(encoding="utf-8"))
    assert sum(url.startswith("./") for _, _, url in found) > 20
    for tag, attr, url in found:
        check_link(tag, attr, url, rep.path.parent)
