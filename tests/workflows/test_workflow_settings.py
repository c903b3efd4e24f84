"""Each workflow's own settings, built-in or a plugin's: declared in its spec,
read typed with ``Setting.of``, kept per workflow (the config file's
``[workflow.<name>]`` tables, the environment, the chosen workflow's flags),
recorded resolved in a session, and read back from any older record."""

from __future__ import annotations

import pytest

from qflow_tui.core.config import ConfigError, RunConfig
from qflow_tui.core.workflows.agentcoder import MAX_TESTS as AGENTCODER_MAX_TESTS
from qflow_tui.core.workflows.codetree import BUDGET, DEPTH, SEARCH
from qflow_tui.core.workflows.qualityflow import CLARIFY, EPOCHS, MAX_TESTS, PROMPTS, TQC
from qflow_tui.core.workflows.settings import ITERATIONS, Setting
from qflow_tui.core.workflows.values import (
    config_from_record,
    load_config,
    recorded_config,
    resolved_settings,
    validate,
)


def _load(tmp_path, text, env=None, **overrides):
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path, env=env or {}, overrides=overrides)


def test_a_workflow_table_sets_its_settings(tmp_path):
    cfg = _load(tmp_path, '[run]\nworkflow = "codetree"\n\n[workflow.codetree]\nbudget = 7\nsearch = "bfs"\n')
    assert (cfg.workflow, BUDGET.of(cfg), SEARCH.of(cfg)) == ("codetree", 7, "bfs")
    # The flags sit above the file, the environment between them.
    text = '[run]\nworkflow = "codetree"\n[workflow.codetree]\nbudget = 7\n'
    assert BUDGET.of(_load(tmp_path, text, env={"QFLOW_BUDGET": "8"})) == 8
    assert BUDGET.of(_load(tmp_path, text, env={"QFLOW_BUDGET": "8"}, budget="9")) == 9


def test_each_workflow_keeps_its_own_values_of_a_shared_key(tmp_path):
    text = "[workflow.agentcoder]\niterations = 2\n[workflow.adacoder]\niterations = 7\n"
    cfg = _load(tmp_path, text)
    assert ITERATIONS.of(cfg.replace(workflow="agentcoder")) == 2
    assert ITERATIONS.of(cfg.replace(workflow="adacoder")) == 7
    # Two workflows' settings may share a key and mean different things: each reads its own.
    qf = cfg.replace(workflow="qualityflow", max_tests=9)
    assert MAX_TESTS.of(qf) == 9 and AGENTCODER_MAX_TESTS.of(qf.replace(workflow="agentcoder")) == 50


def test_tables_beside_a_top_level_workflow_key(tmp_path):
    assert ITERATIONS.of(_load(tmp_path, 'workflow = "agentcoder"\niterations = 2\n')) == 2
    cfg = _load(tmp_path, "[workflow.qualityflow]\nepochs = 1\ntqc = false\n")
    assert (EPOCHS.of(cfg), TQC.of(cfg)) == (1, False)


def test_older_flat_keys_are_each_owning_workflows(tmp_path):
    # Before the workflows declared their settings, [run] held the built-ins' keys.
    cfg = _load(tmp_path, "[run]\nepochs = 2\nclarify = 0\ntqc = false\nbudget = 4\ndepth = 2\n")
    assert (EPOCHS.of(cfg), CLARIFY.of(cfg), TQC.of(cfg)) == (2, 0, False)
    tree = cfg.replace(workflow="codetree")
    assert (BUDGET.of(tree), DEPTH.of(tree)) == (4, 2)


@pytest.mark.parametrize(
    "text,message",
    [
        (
            "[workflow.codetree]\nepochs = 2\n",
            "[workflow.codetree]: codetree has no setting 'epochs'; its settings: budget",
        ),
        ("[workflow.nope]\nx = 1\n", "[workflow.nope]: unknown workflow 'nope'"),
        ("[workflow.codetree]\nbudget = 0\n", "budget 0: choose 1 to 200"),
        ("[workflow.codetree]\nbudget = 'many'\n", "budget must be a whole number, not 'many'"),
        ("[workflow]\ncodetree = 3\n", "[workflow.codetree]: give settings as a table"),
        ("[run]\ncolour = 'red'\n", "unknown setting 'colour'; a workflow's own setting goes in its [workflow.<name>]"),
    ],
)
def test_bad_tables_are_one_line(tmp_path, text, message):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, text)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_flag_of_another_workflows_setting_is_refused_naming_its_workflow(tmp_path):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, "", workflow="zeroshot", budget="3")
    assert str(err.value) == "--budget is a setting of codetree, not of zeroshot: add --workflow codetree, or drop it"
    with pytest.raises(ConfigError, match="--iterations is a setting of agentcoder and adacoder, not of qualityflow"):
        _load(tmp_path, "", iterations="2")
    # The file's and the environment's values for other workflows are kept, not refused.
    cfg = _load(tmp_path, "[workflow.codetree]\nbudget = 7\n", env={"QFLOW_ITERATIONS": "2"}, workflow="zeroshot")
    assert BUDGET.of(cfg.replace(workflow="codetree")) == 7
    assert ITERATIONS.of(cfg.replace(workflow="adacoder")) == 2


def test_a_setting_is_typed_by_its_default_and_read_with_of():
    assert Setting("show", "x", default=True).type is bool
    assert PROMPTS.of(RunConfig()) == 6 and isinstance(PROMPTS.of(RunConfig()), int)
    with pytest.raises(TypeError, match="must be a bool, int, float or str, not list"):
        Setting("colours", "x", default=["red"])  # type: ignore[type-var]
    with pytest.raises(TypeError):
        Setting("colour", "x")  # type: ignore[call-arg]


def test_a_plugins_setting_is_checked_and_read_as_a_built_ins(monkeypatch):
    from qflow_tui.core.workflows import WORKFLOWS, WorkflowSpec
    from qflow_tui.core.workflows.zeroshot import SPEC

    show = Setting("show_tests", "show the visible tests", default=True)
    spec = WorkflowSpec(**{**SPEC.__dict__, "name": "shower", "settings": (show,), "rank": 50})
    monkeypatch.setitem(WORKFLOWS.found, "shower", spec)
    cfg = RunConfig(workflow="shower")
    assert show.of(cfg) is True
    changed = cfg.replace(show_tests=False)
    assert show.of(changed) is False and cfg.workflow_settings == {}
    assert recorded_config(changed)["workflow_settings"] == {"show_tests": False}
    with pytest.raises(ConfigError, match="show_tests must be true or false, not 'yes please'"):
        validate(cfg.replace(show_tests="yes please"))
    with pytest.raises(ConfigError, match="unknown setting colour for shower"):
        validate(cfg.replace(colour="red"))


def test_a_session_records_every_setting_of_its_workflow_resolved():
    cfg = RunConfig(workflow="codetree").replace(budget=7)
    assert resolved_settings(cfg) == {
        "budget": 7,
        "depth": 3,
        "width": 3,
        "search": "critic",
        "separate_scoring": True,
        "solution_verification": True,
        "node_abort": True,
        "node_scoring": True,
    }
    recorded = recorded_config(cfg)
    assert "theme" not in recorded and "budget" not in recorded
    assert config_from_record(recorded) == cfg.replace(
        depth=3,
        width=3,
        search="critic",
        separate_scoring=True,
        solution_verification=True,
        node_abort=True,
        node_scoring=True,
    )


def test_an_older_record_is_read_into_its_workflows_settings():
    # Before: the built-ins' settings were fields of the record, a plugin's in a flat table.
    old = {"workflow": "qualityflow", "model": "script/x", "prompts": 2, "budget": 9, "workflow_settings": {}}
    cfg = config_from_record(old)
    assert PROMPTS.of(cfg) == 2 and cfg.workflow_settings == {"qualityflow": {"prompts": 2}}
    old_plugin_shape = {"workflow": "qualityflow", "epochs": 1, "workflow_settings": {"diversified_prompting": False}}
    assert config_from_record(old_plugin_shape).workflow_settings["qualityflow"] == {
        "epochs": 1,
        "diversified_prompting": False,
    }
    with pytest.raises(ConfigError, match="the recording: prompts 9: the program generator has 6 prompt variants"):
        config_from_record({"workflow": "qualityflow", "prompts": 9})
    assert PROMPTS.of(config_from_record({"workflow": "qualityflow", "prompts": 9}, strict=False)) == 6


def test_a_record_from_before_a_setting_existed_reads_as_it_ran():
    """AgentCoder designed its tests once and CodeTree's Critic scored in one call
    before their settings existed: an older session or bench lacking the key
    resumes, forks and is compared as it ran, not with today's default."""
    from qflow_tui.core.bench.papers import find_row
    from qflow_tui.core.workflows.agentcoder import REGENERATE_TESTS
    from qflow_tui.core.workflows.codetree import SEPARATE_SCORING

    old = config_from_record({"workflow": "agentcoder", "workflow_settings": {"agentcoder": {"iterations": 5}}})
    assert REGENERATE_TESTS.of(old) is False and ITERATIONS.of(old) == 5
    new = config_from_record(recorded_config(RunConfig(workflow="agentcoder")))
    assert REGENERATE_TESTS.of(new) is True
    assert SEPARATE_SCORING.of(config_from_record({"workflow": "codetree", "budget": 20})) is False
    # An older AgentCoder bench ran another protocol than the paper's row.
    from qflow_tui.core.bench import papers

    (figure, *_) = find_row("agentcoder/t1-gpt-3.5-turbo-agentcoder").figures
    older = {"workflow": "agentcoder", "settings": {"workflow_settings": {"iterations": 5}}}
    assert not papers._same_settings(figure, older)
    assert papers._same_settings(figure, {**older, "settings": {"workflow_settings": {"regenerate_tests": True}}})
