"""Count the outcomes of the Parquet campaign fuzz per mutation class (for a closing note):
``PYTHONPATH=src python -m tests.fuzz.count_parquet [N]`` runs N seeds of every mutation of
``test_fuzz_parquet`` on the converted demo campaign and prints, per class, how many were
clean (the clean numbers, or exit 2 naming the file), silently wrong (exit 0, other
numbers), silently accepted (exit 0 on a broken folder), internal errors, hangs (30 s)
or exit 2 without the expected words. Each case runs in a forked child, so a hang or a
crash of an older irmeta is counted, not fatal. Not collected by pytest."""

from __future__ import annotations

import collections
import contextlib
import io
import json
import os
import select
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import numpy as np

from irmeta.cli.main import main
from irmeta.demo import demo_paths
from tests.fuzz import test_fuzz_parquet as F


def _run(folder: Path) -> tuple[object, str, str]:
    """(exit status, stdout, stderr) of ``irmeta eval`` in a forked child."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(r)
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code: object = main(["eval", "-q", "--format", "tsv", *F.MEASURES,
                                     str(folder)])
        except BaseException as exc:  # noqa: BLE001 - any escape is an outcome
            code = f"raised {type(exc).__name__}"
        os.write(w, json.dumps([code, out.getvalue(), err.getvalue()]).encode())
        os._exit(0)
    os.close(w)
    data = b""
    try:
        while True:
            if not select.select([r], [], [], 30)[0]:
                os.kill(pid, signal.SIGKILL)
                return "hang", "", ""
            chunk = os.read(r, 1 << 20)
            if not chunk:
                return tuple(json.loads(data)) if data else ("died", "", "")  # type: ignore
            data += chunk
    finally:
        os.close(r)
        os.waitpid(pid, 0)


def count(n: int) -> dict[str, collections.Counter]:
    base = Path(tempfile.mkdtemp())
    try:
        paths = demo_paths()
        folder = base / "clean" / "c.parquet"
        folder.parent.mkdir()
        with contextlib.redirect_stderr(io.StringIO()):
            assert main(["convert", str(paths.qrels), *map(str, paths.runs[:4]), "-o",
                         str(folder), "--block-topics", "10"]) == 0
        expected = F._eval_output(folder)
        stats: dict[str, collections.Counter] = {}
        for name in sorted(F.MUTATIONS):
            stats[name] = collections.Counter()
            for seed in range(n):
                work = base / f"{name}{seed}" / "c.parquet"
                shutil.copytree(folder, work, symlinks=True)
                want = F.MUTATIONS[name](F.Folder(work, np.random.default_rng(seed)))
                code, out, err = _run(work)
                if want.same or (want.either and code == 0):
                    kind = "clean" if code == 0 and out == expected else "silently wrong"
                elif code == 0:
                    kind = "silently wrong" if out != expected else "silently accepted"
                elif code == "hang":
                    kind = "hang"
                elif code != 2 or "Traceback" in err or "internal error" in err:
                    kind = "internal error"
                elif all(word in err for word in want.words):
                    kind = "clean"
                else:
                    kind = "exit 2, not located"
                stats[name][kind] += 1
                shutil.rmtree(work.parent, ignore_errors=True)
        return stats
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    total: collections.Counter = collections.Counter()
    for name, counts in count(int(sys.argv[1]) if len(sys.argv) > 1 else 20).items():
        total.update(counts)
        print(f"{name:13s} tried {sum(counts.values()):4d}  "
              + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    print(f"{'total':13s} tried {sum(total.values()):4d}  "
          + ", ".join(f"{k}: {v}" for k, v in sorted(total.items())))
