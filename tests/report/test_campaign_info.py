"""``--campaign-info FILE`` and the provenance of a page (issue 33, item 2): what the
campaign is at the top of the page, the qrels' and every run file's SHA-256, the grade
counts and the irmeta version, so a reader can tell which qrels produced the numbers."""

from __future__ import annotations

import hashlib
import re

import pytest

import irmeta
from irmeta.cli.main import main
from irmeta.errors import InputError, ParameterError
from irmeta.io.campaign_info import CampaignInfo, read_campaign_info
from irmeta.report import ReportOptions, analyse_campaign
from tests.report import tiny

GOOD = """\
# the campaign
title = "TREC 2021 Deep Learning: passages"
track = "Deep Learning"
year = 2021
description = "63 runs & 13 groups"
pool_depth = 10
judging = "NIST, grades 0-3"
qrels_version = "v1"

[links]
"Guidelines" = "https://example.org/guide"
"Overview" = "overview.pdf"
"""
QUICK = dict(progress=False, background=0, discpower_trials=20, stability_trials=10,
             ci_trials=50, rare_cutoff=10,
             skip=frozenset({"innovation", "nrg", "effort", "topics", "trust"}))


def _file(tmp_path, text, name="info.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_read_every_key(tmp_path):
    info = read_campaign_info(_file(tmp_path, GOOD))
    assert info.title == "TREC 2021 Deep Learning: passages" and info.year == 2021
    assert (info.track, info.pool_depth, info.qrels_version) == ("Deep Learning", 10, "v1")
    assert info.links == (("Guidelines", "https://example.org/guide"),
                          ("Overview", "overview.pdf"))
    assert ("pool depth", "10") in info.items()
    assert read_campaign_info(_file(tmp_path, "")) == CampaignInfo(
        source=str(tmp_path / "info.toml"))                     # every key optional


@pytest.mark.parametrize("text,line,what", [
    ('title = "x"\nteam = "y"\n', 2, "unknown key 'team'"),
    ('year = "2021"\n', 1, "year is a string (expected an integer"),
    ('year = true\n', 1, "year is true/false"),
    ('pool_depth = -3\n', 1, "pool_depth is -3"),
    ('title = "x"\ntrack = \n', 2, "not TOML"),
    ('links = "https://x"\n', 1, "links is a string (expected a table"),
    ('[links]\n"a" = "https://x"\n"b" = "javascript:alert(1)"\n', 3,
     "link 'b' has the address 'javascript:alert(1)'"),
    ('[links]\nc = 3\n', 2, "link 'c' is an integer"),
])
def test_bad_file_is_a_located_error(tmp_path, text, line, what):
    path = _file(tmp_path, text)
    with pytest.raises(InputError) as err:
        read_campaign_info(path)
    assert str(err.value).startswith(f"{path}:{line}: "), str(err.value)
    assert what in str(err.value)


def test_not_utf8_and_missing_file(tmp_path):
    path = tmp_path / "info.toml"
    path.write_bytes(b'title = "caf\xe9"\n')
    with pytest.raises(InputError, match=r"info.toml:1: not UTF-8"):
        read_campaign_info(path)
    with pytest.raises(InputError, match="cannot read the campaign-info file"):
        read_campaign_info(tmp_path / "absent.toml")


def test_options_take_a_mapping_and_refuse_the_rest():
    opts = ReportOptions(campaign_info={"track": "T", "year": 2020}).validate()
    assert opts.campaign_info == CampaignInfo(track="T", year=2020)
    assert ("campaign_info", "given in Python") in opts.items()
    with pytest.raises(ParameterError, match="campaign_info: unknown key 'team'"):
        ReportOptions(campaign_info={"team": "x"}).validate()
    with pytest.raises(ParameterError, match="campaign_info must be a TOML file's path"):
        ReportOptions(campaign_info=3).validate()


def test_cli_bad_file_exit_2(tmp_path, capsys):
    path = _file(tmp_path, 'track = "x"\nyear = 20.5\n')
    code = main(["report", "--demo", "--campaign-info", str(path), "-o",
                 str(tmp_path / "r.html"), "--no-progress"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"irmeta: error: {path}:2: year is a number"), err
    assert not (tmp_path / "r.html").exists()


def test_in_memory_qrels_digest_is_the_sorted_trec_text():
    """No file: the digest is sha256sum of the judgments written as sorted TREC lines,
    recomputed here from the qrels dict the campaign was built from."""
    a = analyse_campaign(tiny.campaign(), ReportOptions(**QUICK))
    lines = sorted((t.encode(), d.encode(), g) for t, docs in tiny.qrels().items()
                   for d, g in docs.items())
    text = b"".join(b"%s 0 %s %d\n" % row for row in lines)
    assert a.inputs.qrels_digest == "text"
    assert a.inputs.qrels_sha256 == hashlib.sha256(text).hexdigest()
    assert a.inputs.grade_counts == ((0, 3 * 7 + 6), (1, 14), (2, 7))
    assert a.inputs.run_files == tuple((r, "<dict>", None) for r in tiny.RUNS)  # no file
    assert a.inputs.version == irmeta.__version__ and a.inputs.campaign is None


def test_demo_page_shows_the_campaign_and_every_digest(tmp_path):
    from irmeta.demo import demo_paths
    paths = demo_paths()
    out = tmp_path / "r.html"
    info = _file(tmp_path, GOOD.replace("63 runs & 13 groups",
                                        "<b>bold</b> & co").replace("passages", "<i>p</i>"))
    code = main(["report", "--demo", "--campaign-info", str(info), "-o", str(out),
                 "--no-progress", "--skip", "innovation,nrg,effort,topics,trust"])
    assert code == 0
    page = out.read_text(encoding="utf-8")
    assert "<title>TREC 2021 Deep Learning: &lt;i&gt;p&lt;/i&gt;</title>" in page
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; co" in page and "<b>bold</b>" not in page
    assert re.search(r'class="campaign-facts">Deep Learning · 2021 · qrels v1<', page)
    assert '<a href="https://example.org/guide">Guidelines</a>' in page
    qrels_sha = hashlib.sha256(paths.qrels.read_bytes()).hexdigest()
    assert f"{qrels_sha} (of the file, as sha256sum prints it)" in page
    table = (tmp_path / "r_files" / "run_files.tsv").read_text().splitlines()
    assert table[0].split("\t") == ["run", "file", "SHA-256"]
    want = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths.runs}
    got = {row.split("\t")[1]: row.split("\t")[2] for row in table[1:]}
    assert got == want and len(got) == 30
    params = (tmp_path / "r_files" / "parameters.tsv").read_text()
    assert "campaign track\tDeep Learning" in params and "campaign_info\tinfo.toml" in params
    assert f"irmeta version\t{irmeta.__version__}" in (
        tmp_path / "r_files" / "inputs.tsv").read_text()
