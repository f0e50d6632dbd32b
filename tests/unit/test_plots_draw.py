"""Plots draw computed results and never take a Campaign (docs/architecture.md): no
public function of irmeta.plot has a parameter named ``campaign`` or annotated with it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import irmeta.plot


def _plot_functions():
    for info in pkgutil.iter_modules(irmeta.plot.__path__):
        module = importlib.import_module(f"irmeta.plot.{info.name}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if fn.__module__ == module.__name__ and not name.startswith("_"):
                yield f"{module.__name__}.{name}", fn


def test_no_plot_takes_a_campaign():
    found = list(_plot_functions())
    assert len(found) > 10                              # the walk finds the plots
    offenders = [name for name, fn in found
                 for p in inspect.signature(fn).parameters.values()
                 if p.name == "campaign" or "Campaign" in str(p.annotation)]
    assert offenders == []
