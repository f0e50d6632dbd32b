"""Reading score matrices: the real files, both layouts, and every input error."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from irmeta.errors import InputError, ParameterError
from irmeta.io.matrix import read_matrix

from ..conftest import shared_path


def _write(tmp_path, text, name="m.txt"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("name, shape", [("dl19.ndcg_cut10.csv", (37, 43)),
                                         ("dl20.ndcg_cut10.csv", (59, 54)),
                                         ("dl21.ndcg_cut10.csv", (63, 53))])
def test_dl_long_files_drop_average_rows_which_match_the_row_means(name, shape):
    path = shared_path("trec-dl-2021-passage", "score-matrices", name)
    m = read_matrix(path)
    assert m.shape == shape and m.index.name == "run" and m.columns.name == "topic"
    assert "average" not in m.columns
    raw = pd.read_csv(path, dtype={"runid": str, "topic": str})
    avg = raw[raw.topic == "average"].set_index("runid")["ndcg_cut_10"]
    # both rounded to 4 decimals
    np.testing.assert_allclose(m.mean(axis=1).loc[avg.index], avg, atol=1e-4)


def test_web2010_wide_files_are_transposed_to_systems_by_topics():
    path = shared_path("trec-2010-web-adhoc-score-matrices", "web2010ap.csv")
    m = read_matrix(path)
    assert m.shape == (88, 48)
    assert m.index[0] == "sys1" and m.columns[0] == "0"
    raw = pd.read_csv(path, index_col=0)
    assert m.loc["sys7", "3"] == raw.loc[3, "sys7"]


def test_long_without_header_whitespace_and_string_topics(tmp_path):
    p = _write(tmp_path, "r1 001 0.5\nr1 002 0.25\nr2 001 1\nr2 002 0\n# comment\n\n")
    m = read_matrix(p)
    assert list(m.columns) == ["001", "002"] and list(m.index) == ["r1", "r2"]
    assert m.loc["r2", "001"] == 1.0


def test_long_tsv_with_measure_column_and_all_rows(tmp_path):
    text = ("run\tmeasure\ttopic\tvalue\n" "a\tAP\t1\t0.5\n" "a\tP@10\t1\t0.3\n"
            "a\tAP\tall\t0.5\n" "b\tAP\t1\t0.1\n" "b\tP@10\t1\t0.2\n")
    p = _write(tmp_path, text)
    with pytest.raises(InputError, match="several measures .*measure="):
        read_matrix(p)
    m = read_matrix(p, measure="P@10")
    assert m.to_dict() == {"1": {"a": 0.3, "b": 0.2}}
    with pytest.raises(InputError, match="no line with measure 'nDCG'"):
        read_matrix(p, measure="nDCG")


def test_gzip_is_detected_by_magic(tmp_path):
    p = tmp_path / "m.dat"
    p.write_bytes(gzip.compress(b"run,topic,value\nx,1,0.5\n"))
    assert read_matrix(p).loc["x", "1"] == 0.5


def test_wide_with_system_rows_and_explicit_rows(tmp_path):
    p = _write(tmp_path, "system,t1,t2\ns1,0.1,0.2\ns2,0.3,0.4\n")
    assert read_matrix(p).loc["s2", "t1"] == 0.3
    q = _write(tmp_path, "x,s1,s2\nt1,0.1,0.2\nt2,0.3,0.4\n", "q.csv")
    with pytest.raises(InputError, match="rows are topics or systems.*rows='topics'"):
        read_matrix(q)
    assert read_matrix(q, rows="topics").loc["s2", "t1"] == 0.2


def test_missing_cells(tmp_path):
    p = _write(tmp_path, "run,topic,value\na,1,0.5\na,2,0.1\nb,1,0.2\n")
    with pytest.raises(InputError, match="1 of 4 cells missing, first run 'b' on topic '2'"):
        read_matrix(p)
    assert np.isnan(read_matrix(p, missing="nan").loc["b", "2"])
    assert read_matrix(p, missing=0).loc["b", "2"] == 0.0
    w = _write(tmp_path, "topic,s1,s2\n1,0.1,NA\n2,0.3,0.4\n", "w.csv")
    with pytest.raises(InputError, match="cells missing"):
        read_matrix(w)


@pytest.mark.parametrize("text, message", [
    ("run,topic,value\na,1,0.5\na,1,0.6\n",
     r"m.txt:3, topic '1': run 'a' scored twice .*also line 2"),
    ("run,topic,value\na,1,high\n", r"m.txt:2: value 'high' is not a number"),
    ("run,topic,value\na,1,inf\n", r"m.txt:2: value 'inf' is infinite"),
    ("run,topic,value\na,1\n", r"m.txt:2: 2 fields \(expected 3 fields"),
    ("topic,s1,s2\n1,0.1\n", r"m.txt:2: 2 fields"),
    ("topic,s1,s1\n1,0.1,0.2\n", r"column 's1' appears twice"),
    ("topic,s1\n1,0.1\n1,0.2\n", r"row '1' appears twice \(also line 2\)"),
    ("# only a comment\n", r"empty file"),
    ("run,topic,value\n", r"no scores found"),
])
def test_input_errors_locate_the_problem(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_matrix(_write(tmp_path, text))


def test_missing_file_and_bad_parameters(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_matrix(tmp_path / "nope.csv")
    p = _write(tmp_path, "a 1 0.5\n")
    with pytest.raises(ParameterError, match="layout must be"):
        read_matrix(p, layout="tall")
    with pytest.raises(ParameterError, match="missing must be"):
        read_matrix(p, missing="zero")
