"""What is declared once is read from its one declaration: measure families (the
registry), the `irmeta reproduce` options (the parameters dataclasses) and the report's
column notes and aggregation (the measure declarations)."""

from __future__ import annotations

from dataclasses import MISSING, fields, replace

import pytest
from click.testing import CliRunner

from irmeta.cli.measures import measures_command
from irmeta.cli.reproduce import reproduce_command
from irmeta.errors import ParameterError
from irmeta.measures import registry
from irmeta.reproduce import params as reproduce_params

PARAMS = {"innovation": reproduce_params.InnovationParams, "nrg": reproduce_params.NRGParams,
          "twist": reproduce_params.TwistParams, "gawm": reproduce_params.GAWMParams}


@pytest.mark.parametrize("family", sorted({d.family for d in registry.all_measures()}))
def test_measures_lists_every_registry_family(family):
    out = CliRunner().invoke(measures_command, ["--family", family])
    assert out.exit_code == 0, out.output
    first = next(d.name for d in registry.all_measures() if d.family == family)
    assert out.output.startswith(first)


def test_an_undeclared_family_is_refused_at_registration():
    definition = registry.get("AP")
    with pytest.raises(ValueError, match="family 'novel' is not one of"):
        registry.register(replace(definition, name="AP_novel", aliases=(), family="novel"))
    assert registry.get("AP_novel") is None


@pytest.mark.parametrize("paper", sorted(PARAMS))
def test_reproduce_options_are_the_declared_fields(paper):
    """Each field declaring an option is a click option storing into that field, with the
    field's default; no other option fills a parameter."""
    command = reproduce_command.commands[paper]
    by_dest = {p.name: p for p in command.params}
    declared = [f for f in fields(PARAMS[paper]) if f.metadata.get("option")]
    assert declared
    for f in declared:
        option = by_dest[f.name]
        assert set(f.metadata["option"]) <= set(option.opts)
        default = f.default if f.default is not MISSING else f.default_factory()
        ctx = command.make_context(paper, ["--demo"] if paper != "gawm" else [])
        value = ctx.params[f.name]
        assert (tuple(value) if isinstance(default, tuple) else value) == default


def test_cli_and_api_refuse_the_same_value():
    """--stability-trials 0 on the command line and stability_trials=0 in Python fail with
    the same words: one constraint."""
    command = reproduce_command.commands["innovation"]
    out = CliRunner().invoke(command, ["--demo", "--stability-trials", "0"])
    assert out.exit_code == 2 and "must be an integer in [1, 1000000], got 0" in out.output
    with pytest.raises(ParameterError, match=r"stability_trials must be an integer in "
                                             r"\[1, 1000000\], got 0"):
        reproduce_params.InnovationParams(stability_trials=0).validate()


@pytest.mark.parametrize("measure,note", [
    ("AP", "rel. ≥ 1"), ("P(rel=2)@10", "rel. ≥ 2"), ("nDCG@10", "gain = grade"),
    ("RBP", "rel. ≥ 1"), ("RBP(graded=true)", "gain = grade"),
    ("NRG(prior=others)@10", "gain = grade; prior: others"),
    ("NRG(base=P,prior=others)@10", "rel. ≥ 1"), ("Judged@10", "judged: any grade"),
    ("ERR@20", "gain = grade"), ("Twist@100", "rel. ≥ 1")])
def test_report_column_notes_come_from_the_declarations(measure, note):
    from irmeta.report.columns import Column
    assert Column(measure, measure, "").relevance(1, "others") == note


@pytest.mark.parametrize("measure,kind", [("AP", "mean"), ("GMAP", "gmean"),
                                          ("num_rel_ret", "sum"), ("num_q", "sum")])
def test_report_column_aggregation_is_the_declared_one(measure, kind):
    from irmeta.report.columns import Column
    assert Column(measure, measure, "").kind == kind
    assert Column(measure, measure, "", total=True).kind == "sum"
