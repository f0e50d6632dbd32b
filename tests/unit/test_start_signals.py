"""A signal while the ``irmeta`` command is still starting (importing the CLI) is
answered as later: exit 130 ``irmeta: aborted`` / 143 ``irmeta: terminated``, never the
interpreter's default death by signal (issue 32, item 1; :mod:`irmeta.cli.entry`)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

# the import of click (which the CLI needs first) waits until the parent has signalled
SLOW_START = r"""
import sys, time, importlib.abc

class Slow(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "click":
            sys.meta_path.remove(self)
            sys.stderr.write("importing click\n"); sys.stderr.flush()
            time.sleep(30)
        return None

for name in [m for m in sys.modules if m == "click" or m.startswith("click.")]:
    del sys.modules[name]
sys.meta_path.insert(0, Slow())
sys.argv = ["irmeta", "--version"]
from irmeta.cli.entry import run
run()
"""


@pytest.mark.parametrize("signum, status, line", [
    (signal.SIGINT, 130, "irmeta: aborted"),
    (signal.SIGTERM, 143, "irmeta: terminated"),
])
def test_signal_during_start_up(signum, status, line):
    proc = subprocess.Popen([sys.executable, "-c", SLOW_START], stderr=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    assert proc.stderr.readline().strip() == "importing click"
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert err.strip().splitlines()[-1] == line
    assert "Traceback" not in err


def test_python_dash_m_irmeta_is_the_command():
    done = subprocess.run([sys.executable, "-m", "irmeta", "--version"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and "irmeta, version" in done.stdout
