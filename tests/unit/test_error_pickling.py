"""Every exception class of irmeta crosses a process boundary intact (issue 32): a
located error raised in a report's child job or on a Dask worker reaches the parent as
the same error, never as "cannot read the child's result" (an internal error).

The classes are found, not listed: every module of the package is imported and every
subclass of ``BaseException`` defined in irmeta is constructed from its signature and
round-tripped through pickle (what ``fork`` jobs and Dask both use)."""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil

import pytest

import irmeta

#: modules that need an optional package which may be absent
_OPTIONAL = {"dask", "distributed", "pyterrier", "ir_datasets", "ir_measures"}


def _modules():
    for info in pkgutil.walk_packages(irmeta.__path__, "irmeta."):
        try:
            yield importlib.import_module(info.name)
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] not in _OPTIONAL:
                raise


def _classes() -> list[type]:
    found = {}
    for module in [irmeta, *_modules()]:
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__.startswith("irmeta"):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[name] for name in sorted(found)]


CLASSES = _classes()


def _value(param: inspect.Parameter):
    """An argument for ``param``, of the kind its annotation names."""
    note = str(param.annotation)
    if "list" in note:
        return ["AP", "nDCG@10"]
    if "int" in note:
        return 7
    if "bool" in note:
        return True
    return f"the {param.name}"


def _instance(cls: type) -> BaseException:
    """``cls`` with every parameter of its ``__init__`` given (required and optional,
    so that every attribute it stores is set)."""
    args, kwargs = [], {}
    init = cls.__init__
    if init in (BaseException.__init__, Exception.__init__) or not \
            inspect.isfunction(init):
        return cls("a message")
    for param in list(inspect.signature(init).parameters.values())[1:]:
        if param.kind is param.VAR_POSITIONAL:
            args.append("a message")
        elif param.kind is param.VAR_KEYWORD:
            continue
        elif param.kind is param.KEYWORD_ONLY:
            kwargs[param.name] = _value(param)
        else:
            args.append(_value(param))
    return cls(*args, **kwargs)


def test_the_walk_finds_the_known_classes():
    names = {cls.__name__ for cls in CLASSES}
    assert {"IrmetaError", "InputError", "MeasureError", "ParameterError", "CampaignError",
            "ResourceError", "OutputError", "ConvergenceWarning", "Invalid",
            "Terminated", "StdoutClosed"} <= names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__qualname__)
def test_every_exception_survives_a_pickle_round_trip(cls):
    exc = _instance(cls)
    copy = pickle.loads(pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL))
    assert type(copy) is cls
    assert str(copy) == str(exc)
    assert copy.args == exc.args
    assert vars(copy) == vars(exc)
    # and once more (a Dask worker's error re-raised by a child job, say)
    assert str(pickle.loads(pickle.dumps(copy))) == str(exc)
