"""Each workflow's own settings: the ``[workflow.<name>]`` tables of the config
file, the flat keys older files and session headers use, and a setting that is
not a RunConfig field (a plugin's), kept in ``workflow_settings``."""

from __future__ import annotations

import pytest

from qflow_tui.core.config import ConfigError, RunConfig
from qflow_tui.core.workflows.settings import Setting
from qflow_tui.core.workflows.values import load_config, setting_value, validate


def _load(tmp_path, text, **overrides):
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path, env={}, overrides=overrides)


def test_a_workflow_table_sets_its_settings(tmp_path):
    cfg = _load(tmp_path, '[run]\nworkflow = "codetree"\n\n[workflow.codetree]\nbudget = 7\nsearch = "bfs"\n')
    assert (cfg.workflow, cfg.budget, cfg.search) == ("codetree", 7, "bfs")
    # The flags sit above the file.
    assert _load(tmp_path, "[workflow.codetree]\nbudget = 7\n", budget="9").budget == 9


def test_tables_beside_a_top_level_workflow_key(tmp_path):
    # Without a [run] table, `workflow = "..."` chooses one; tables then sit under [workflow.X] only
    # where TOML allows it, so both spellings are read.
    assert _load(tmp_path, 'workflow = "agentcoder"\niterations = 2\n').iterations == 2
    assert _load(tmp_path, "[workflow.qualityflow]\nepochs = 1\ntqc = false\n").epochs == 1


def test_older_flat_keys_still_read(tmp_path):
    cfg = _load(tmp_path, "[run]\nepochs = 2\nclarify = 0\ntqc = false\nbudget = 4\ndepth = 2\n")
    assert (cfg.epochs, cfg.clarify, cfg.tqc, cfg.budget, cfg.depth) == (2, 0, False, 4, 2)


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
    ],
)
def test_bad_tables_are_one_line(tmp_path, text, message):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, text)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_setting_that_is_not_a_field_lives_in_workflow_settings(monkeypatch):
    from qflow_tui.core.workflows import values

    extra = Setting("show_tests", "show the visible tests", default=True)
    monkeypatch.setattr(values, "all_settings", lambda: [extra])
    cfg = RunConfig()
    assert setting_value(cfg, "show_tests") is True
    changed = cfg.replace(show_tests=False, epochs=1)
    assert setting_value(changed, "show_tests") is False and changed.epochs == 1 and cfg.workflow_settings == {}
    assert changed.public_dict()["workflow_settings"] == {"show_tests": False}
    with pytest.raises(ConfigError, match="unknown setting 'colour'"):
        validate(RunConfig(workflow_settings={"colour": "red"}))


def test_a_setting_needs_a_default_unless_it_is_a_field():
    assert Setting("budget", "x").default == 20
    with pytest.raises(TypeError, match="needs a default"):
        Setting("colour", "x")
    with pytest.raises(TypeError, match="is a RunConfig field"):
        Setting("budget", "x", default=3)
