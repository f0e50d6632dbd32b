"""Fixtures the fuzz tests share."""

from __future__ import annotations

import pytest


@pytest.fixture
def tmpdir_only(tmp_path, monkeypatch):
    """TMPDIR of this test: a folder whose leftovers the test can list."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr("tempfile.tempdir", str(folder))
    return folder
