"""Run Python code in a fresh interpreter: what a test of imports needs (which modules a
command or an import loads cannot be seen from inside the test process, which has loaded
everything already)."""

from __future__ import annotations

import subprocess
import sys


def python_output(code: str, **kwargs) -> subprocess.CompletedProcess:
    """``python -c code`` in a new interpreter, text output captured; a failure raises
    (``check``). ``kwargs`` go to :func:`subprocess.run` (``cwd``, ``env``)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, **kwargs)
