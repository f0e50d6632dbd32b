"""irmeta: evaluate retrieval runs in the context of the runs they compete with."""

from irmeta.errors import (
    CampaignError,
    ConvergenceWarning,
    InputError,
    IrmetaError,
    IrmetaWarning,
    MeasureError,
    ParameterError,
)

__version__ = "0.1.0"


def __getattr__(name):  # lazy public API: keeps `import irmeta` and CLI start-up cheap
    lazy = {
        "evaluate": ("irmeta.evaluation", "evaluate"),
        "Results": ("irmeta.evaluation", "Results"),
        "open_shards": ("irmeta.evaluation", "open_shards"),
        "Campaign": ("irmeta.data.campaign", "Campaign"),
        "load_campaign": ("irmeta.io.load", "load_campaign"),
        "load_qrels": ("irmeta.io.load", "load_qrels"),
        "load_runs": ("irmeta.io.load", "load_runs"),
        "read_qrels": ("irmeta.io.trec", "read_qrels"),
        "read_run": ("irmeta.io.trec", "read_run"),
        "read_groups": ("irmeta.io.load", "read_groups"),
        "parse_measure": ("irmeta.measures.parse", "parse_measure"),
        "parse_measures": ("irmeta.measures.parse", "parse_measures"),
        "explain_documents": ("irmeta.explain", "explain_documents"),
        "unique_contributions": ("irmeta.explain", "unique_contributions"),
        "unique_documents": ("irmeta.explain", "unique_documents"),
        "compare": ("irmeta.stats.comparison", "compare"),
        "Comparison": ("irmeta.stats.comparison", "Comparison"),
        "pool": ("irmeta.pooling", "pool"),
        "Pool": ("irmeta.pooling", "Pool"),
        "risk": ("irmeta.stats.risk", "risk"),
        "Risk": ("irmeta.stats.risk", "Risk"),
        "check": ("irmeta.submissions", "check"),
        "CheckResult": ("irmeta.submissions", "CheckResult"),
        "Problem": ("irmeta.submissions", "Problem"),
    }
    if name in lazy:
        import importlib
        module, attr = lazy[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'irmeta' has no attribute {name!r}")


__all__ = ["CampaignError", "InputError", "IrmetaError", "MeasureError", "ParameterError",
           "IrmetaWarning", "ConvergenceWarning",
           "evaluate", "open_shards", "Results", "Campaign", "load_campaign", "load_qrels",
           "load_runs", "read_qrels", "read_run", "read_groups", "parse_measure", "parse_measures",
           "explain_documents", "unique_contributions", "unique_documents", "compare",
           "Comparison", "pool", "Pool", "risk", "Risk", "check", "CheckResult", "Problem",
           "__version__"]
