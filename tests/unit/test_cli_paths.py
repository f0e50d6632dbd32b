"""--reference-runs accepts files, comma lists, folders and globs."""

from __future__ import annotations

import pytest

from irmeta.cli.common import expand_paths
from irmeta.errors import CampaignError


def test_expand_paths(tmp_path):
    for name in ("a.gz", "b.gz", "c.txt"):
        (tmp_path / name).write_text("x")
    folder = [str(tmp_path / n) for n in ("a.gz", "b.gz", "c.txt")]
    assert expand_paths([str(tmp_path)]) == folder
    assert expand_paths([str(tmp_path / "*.gz")]) == folder[:2]
    assert expand_paths([f"{folder[0]},{folder[2]}"]) == [folder[0], folder[2]]
    assert expand_paths([folder[1], folder[0]]) == [folder[1], folder[0]]
    with pytest.raises(CampaignError, match="no file matches"):
        expand_paths([str(tmp_path / "*.zip")])
