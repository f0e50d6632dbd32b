"""The spill folder of a sharded evaluation: created with a message, not a traceback.

TREC files evaluated in shards are first partitioned into a temporary folder
(``irmeta-shards-*``) under ``spill_dir`` (``--spill-dir``; default ``TMPDIR``), deleted
when the evaluation ends, by an exception, Ctrl-C (SIGINT) or, from the ``irmeta``
command, SIGTERM (``docs/scaling.md``). A folder that is missing, is a file, or cannot
be written is an :class:`~irmeta.errors.OutputError` naming it and the reason, and so
is a failure to write the partitioned files into it (disk full: :func:`convert_into`).
"""

from __future__ import annotations

import os
import tempfile

from irmeta.errors import IrmetaError, OutputError
from irmeta.io.output import output_error
from irmeta.shards.partition import convert

PREFIX = "irmeta-shards-"


def make_spill_dir(spill_dir=None) -> str:
    """A new, empty temporary folder under ``spill_dir`` (None: ``TMPDIR``); the caller
    deletes it (``spill_dir`` as :class:`~irmeta.options.WorkOptions` checked it: a
    path). Raises :class:`OutputError` when the folder cannot be made there."""
    parent = tempfile.gettempdir() if spill_dir is None else os.fspath(spill_dir)
    if not isinstance(parent, str):
        parent = os.fsdecode(parent)
    try:
        return tempfile.mkdtemp(prefix=PREFIX, dir=parent)
    except OSError as exc:
        reason = output_error(exc.filename or os.path.join(parent, PREFIX), exc).reason
        raise OutputError(f"the spill folder {parent}", reason) from None


def convert_into(qrels, runs, folder: str, **options):
    """:func:`irmeta.shards.partition.convert` into the spill folder ``folder``: the
    inputs' own errors as they are, an operating-system error (which can then only be a
    write into the folder: the reader turns its own into :class:`InputError`) as
    :class:`OutputError` naming the folder and the reason (``No space left on
    device``)."""
    try:
        return convert(qrels, runs, folder, **options)
    except IrmetaError:
        raise
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if "No space left on device" in str(exc):   # Arrow's text: "Error writing ..."
            reason = "No space left on device"
        raise OutputError(f"the spill folder {os.path.dirname(folder)}",
                          f"{reason} (writing the partitioned files)") from None
