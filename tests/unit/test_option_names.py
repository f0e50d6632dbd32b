"""One name per option (docs/cli.md, "Option and field names"): every option of ``irmeta
report`` fills the ``ReportOptions`` field of the same name (dashes as underscores), every
option of ``irmeta reproduce <paper>`` the parameters-dataclass field of the same name, and
the pages' parameter tables print those names. The exceptions are listed here and in the
docs, each with its reason."""

from __future__ import annotations

from dataclasses import fields

import click
import pandas as pd
import pytest

from irmeta.cli.common import campaign_options
from irmeta.cli.main import cli
from irmeta.cli.shards import shard_options


def _params_of(decorator) -> set[str]:
    """The parameter names a shared option decorator adds."""
    return {p.name for p in decorator(lambda **kw: None).__click_params__}


def _command(*path: str) -> click.Command:
    ctx = click.Context(cli)
    cmd: click.Command = cli
    for name in path:
        assert isinstance(cmd, click.Group)
        cmd = cmd.get_command(ctx, name)
    return cmd


def _long_name(option: click.Option) -> str:
    longs = [o for o in option.opts if o.startswith("--")]
    return longs[0][2:].replace("-", "_")


#: report options that are not report parameters: how the campaign is read (shared with
#: ``irmeta eval``; ``--rel-level`` is the exception, it is ``ReportOptions.rel_level``),
#: where the work runs, where the page goes and its title; ``--quiet``, which every
#: command has (issue 48: what is said on stderr, not what is computed); ``--export-groups``,
#: where the per-group folders of the written report go (``irmeta.report.export_groups``)
REPORT_NOT_FIELDS = (_params_of(campaign_options) - {"rel_level"}) | _params_of(shard_options) \
    | {"output", "title", "quiet", "export_groups"}
#: ReportOptions fields without an option: set from Python only (docs/report.md)
FIELDS_NOT_OPTIONS = {"examples", "background"}


def _report_fields() -> set[str]:
    from irmeta.report import ReportOptions
    return {f.name for f in fields(ReportOptions)}


def test_every_report_option_is_the_field_of_the_same_name():
    cmd = _command("report")
    options = [p for p in cmd.params if isinstance(p, click.Option)]
    names = {p.name for p in options}
    assert REPORT_NOT_FIELDS <= names          # the exception list is not stale
    report_fields = _report_fields()
    for p in options:
        if p.name in REPORT_NOT_FIELDS:
            continue
        assert p.name == _long_name(p), f"{p.opts} fills {p.name!r}: spell them alike"
        assert p.name in report_fields, f"{p.opts}: ReportOptions has no field {p.name!r}"
    missing = report_fields - FIELDS_NOT_OPTIONS - names
    assert not missing, f"ReportOptions fields without an `irmeta report` option: {missing}"
    assert FIELDS_NOT_OPTIONS <= report_fields


def test_report_former_names_are_gone():
    gone = {"bootstrap", "trials", "rare_k", "nrg_k"}
    assert not gone & _report_fields()
    assert not gone & {p.name for p in _command("report").params}


def test_the_report_parameter_table_prints_the_option_names():
    """The page's parameter table (``render.inputs``) lists each option by its field name,
    which is the option's name: nothing else."""
    from irmeta.report import ReportOptions
    from irmeta.report.analysis import InputsSection
    from irmeta.report.render import inputs

    opts = ReportOptions(progress=False, background=0).validate()
    sec = InputsSection(files=(), runs=3, groups=None, qrels_topics=2, analysed_topics=2,
                        judged=10, relevant=4, relevant_per_topic=2.0, rel_level=1, depth=10,
                        nrg_prior="others", prior_runs=None, reference_runs=None,
                        dropped_topics=None, parameters=tuple(opts.items()))
    view = inputs(sec)
    tables = [t for row in view.blocks for t in getattr(row, "blocks", [row])
              if getattr(t, "name", None) == "parameters"]
    assert len(tables) == 1
    printed = list(tables[0].frame["parameter"])
    options = {p.name for p in _command("report").params
               if isinstance(p, click.Option)} - REPORT_NOT_FIELDS
    # every printed name is an option, except the one field set from Python only
    assert set(printed) - options == {"examples"}
    # every option is printed, except the progress bar (how, not what, is computed)
    assert options - set(printed) == {"progress"}


# ---------------------------------------------------------------------- reproduce
#: options of every ``reproduce`` subcommand that are not analysis parameters
REPRODUCE_OUTPUT = {"output", "svg", "dpi", "progress", "quiet"}
#: per paper: (options that are not parameters, parameters without an option)
REPRODUCE_EXCEPTIONS = {
    "innovation": ({"figure1"},                 # whether to run Figure 1 at all
                   {"table_alphas", "levels", "sizes", "table3_alpha", "figure1_max_d",
                    "figure1_alphas"}),
    "nrg": (set(), {"label_top"}),
    "twist": (set(), {"gains", "levels"}),
    # the input (a matrix file, or a campaign evaluated at -l: the inputs table says so)
    # and its label
    "gawm": ({"matrix_path", "rows", "measure_name", "name", "rel_level"},
             {"loto_axioms", "heatmap_means"}),
}


def _params_class(paper: str):
    import importlib
    module = importlib.import_module(f"irmeta.reproduce.{paper}")
    return getattr(module, {"innovation": "InnovationParams", "nrg": "NRGParams",
                            "twist": "TwistParams", "gawm": "GAWMParams"}[paper])


@pytest.mark.parametrize("paper", sorted(REPRODUCE_EXCEPTIONS))
def test_every_reproduce_option_is_the_parameter_of_the_same_name(paper):
    not_params, not_options = REPRODUCE_EXCEPTIONS[paper]
    cmd = _command("reproduce", paper)
    campaign = _params_of(campaign_options) - {"rel_level"}
    options = [p for p in cmd.params if isinstance(p, click.Option)
               and p.name not in campaign | REPRODUCE_OUTPUT | not_params]
    params = {f.name for f in fields(_params_class(paper))}
    names = {p.name for p in options}
    for p in options:
        assert p.name == _long_name(p), f"reproduce {paper} {p.opts} fills {p.name!r}"
        assert p.name in params, f"reproduce {paper} {p.opts}: no parameter {p.name!r}"
    assert params - names == not_options, f"reproduce {paper}: update the exception list"
    assert not_params <= {p.name for p in cmd.params}


@pytest.mark.parametrize("paper", sorted(REPRODUCE_EXCEPTIONS))
def test_the_reproduce_parameter_table_prints_the_option_names(paper):
    from irmeta.reproduce._session import params_frame
    cls = _params_class(paper)
    frame: pd.DataFrame = params_frame(cls())
    assert list(frame["parameter"]) == [f.name for f in fields(cls)]
    options = {p.name for p in _command("reproduce", paper).params}
    assert options & set(frame["parameter"]) >= \
        {f.name for f in fields(cls)} - REPRODUCE_EXCEPTIONS[paper][1]


def test_reproduce_former_names_are_gone():
    for paper, gone in (("innovation", {"k", "trials", "samples"}), ("nrg", {"k"}),
                        ("twist", {"samples", "trials"})):
        assert not gone & {f.name for f in fields(_params_class(paper))}, paper
        assert not gone & {p.name for p in _command("reproduce", paper).params}, paper
