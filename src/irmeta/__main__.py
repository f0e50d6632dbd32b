"""``python -m irmeta``: the ``irmeta`` command (:func:`irmeta.cli.entry.run`)."""

from irmeta.cli.entry import run

if __name__ == "__main__":
    run()
