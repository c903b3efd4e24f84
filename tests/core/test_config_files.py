"""A config file can hold anything: every value of a wrong type or out of its
setting's range, a file that is a folder or a device, is one line naming the
key or the file and what to do, never a traceback and never a read that does
not end. Fuzzed with hypothesis over TOML values of every type."""

from __future__ import annotations

import math
import os
import threading

import pytest
import tomlkit
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from qflow_tui.core.config import MAX_CONFIG_BYTES, ConfigError, RunConfig, save_setting
from qflow_tui.core.llm.prices import load_prices
from qflow_tui.core.workflows.qualityflow import EPOCHS
from qflow_tui.core.workflows.values import load_config, validate
from tests.helpers import qflow


@pytest.mark.parametrize(
    "body,words",
    [
        ("run = 5", "run must be a table of settings"),
        ("epochs = inf", "epochs must be a whole number, not inf"),
        ("[run]\nepochs = 1e400", "epochs must be a whole number"),
        ("test_timeout = nan", "test_timeout must be a finite number, not nan"),
        ("test_timeout = 1e9", "test_timeout 1e+09: give at most 86400 seconds"),
        ("prompts = 3.7", "prompts must be a whole number, not 3.7"),
        ("seed = true", "seed must be a whole number, not True"),
        ("temperature = -3", "temperature -3.0: give 0 to 2"),
        ("temperature = nan", "temperature must be a finite number"),
        ("call_timeout = inf", "call_timeout must be a finite number"),
        ("max_tokens = 99999999999999999999", "max_tokens is far too large"),
        ("max_tokens = 0", "max_tokens 0: give 1 to 10,000,000"),
        ("checker = 5", "checker must be text, not 5"),
        ("workflow = 'nope'", "unknown workflow 'nope': choose one of"),
        ("repetition_stop = 'maybe'", "repetition_stop must be true or false"),
        ('[models."openai/x"]\ntemperature = inf', '[models."openai/x"]: temperature must be a finite number'),
        ("[[run]]\nepochs = 1", "run must be a table"),
    ],
)
def test_each_bad_value_is_one_line_naming_the_key(tmp_path, body, words):
    f = tmp_path / "config.toml"
    f.write_text(body + "\n")
    with pytest.raises(ConfigError) as caught:
        load_config(f, env={})
    message = str(caught.value)
    assert words in message and str(f) in message and "\n" not in message


def test_environment_values_are_checked_the_same(tmp_path):
    with pytest.raises(ConfigError, match="QFLOW_EPOCHS: epochs must be a whole number, not 'inf'"):
        load_config(tmp_path / "none.toml", env={"QFLOW_EPOCHS": "inf"})
    with pytest.raises(ConfigError, match="QFLOW_TEMPERATURE: temperature must be a finite number"):
        load_config(tmp_path / "none.toml", env={"QFLOW_TEMPERATURE": "nan"})
    assert load_config(tmp_path / "none.toml", env={"QFLOW_TEST_TIMEOUT": " 5 "}).test_timeout == 5.0


def test_a_whole_number_of_seconds_is_a_number_of_seconds(tmp_path):
    f = tmp_path / "config.toml"
    f.write_text("test_timeout = 5\ncall_timeout = 0\n")
    config = load_config(f, env={})
    assert config.test_timeout == 5.0 and isinstance(config.test_timeout, float)


def test_a_prices_table_beside_top_level_settings_is_not_an_unknown_setting(tmp_path):
    f = tmp_path / "config.toml"
    f.write_text('epochs = 2\n[prices."a/b"]\ninput = 1.0\noutput = 2.0\n')
    assert EPOCHS.of(load_config(f, env={})) == 2
    assert load_prices(f)["a/b"].input == 1.0


def test_a_config_file_that_is_a_folder_is_one_line(tmp_path):
    f = tmp_path / "config.toml"
    f.mkdir()
    with pytest.raises(ConfigError, match="is a folder, not a config file"):
        load_config(f, env={})
    with pytest.raises(ConfigError, match="is a folder"):
        save_setting("theme", "qflow-light", f)
    assert load_prices(f)  # the built-in table; load_config says what is wrong


def _ends_within(seconds: float, fn) -> BaseException | None:
    """``fn()``'s exception, failing the test if it has not returned by then."""
    out: list[BaseException | None] = []

    def run() -> None:
        try:
            fn()
            out.append(None)
        except BaseException as exc:  # handed back to the test
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert out, f"still reading after {seconds} s"
    return out[0]


def test_a_config_file_linked_to_a_device_is_refused_at_once(tmp_path):
    f = tmp_path / "config.toml"
    os.symlink("/dev/zero", f)
    exc = _ends_within(10, lambda: load_config(f, env={}))
    assert isinstance(exc, ConfigError) and "not a regular file" in str(exc)
    assert _ends_within(10, lambda: load_prices(f)) is None
    exc = _ends_within(10, lambda: save_setting("theme", "x", f))
    assert isinstance(exc, ConfigError)


def test_a_fifo_as_config_file_does_not_wait_for_a_writer(tmp_path):
    f = tmp_path / "config.toml"
    os.mkfifo(f)
    exc = _ends_within(10, lambda: load_config(f, env={}))
    assert isinstance(exc, ConfigError) and "not a regular file" in str(exc)


def test_a_huge_config_file_is_refused_reading_a_bounded_amount(tmp_path):
    f = tmp_path / "config.toml"
    with open(f, "wb") as fh:
        fh.write(b"# " + b"x" * (MAX_CONFIG_BYTES + 10) + b"\n")
    with pytest.raises(ConfigError, match="larger than 1024 KB"):
        load_config(f, env={})


def test_the_cli_says_it_in_one_line(tmp_path):
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "config.toml").write_text("epochs = inf\n")
    done = qflow("solve", "--problem", "mbpp/11", "--model", "script/x.py", env={"QFLOW_CONFIG_DIR": str(cfg)})
    assert done.returncode != 0 and "Traceback" not in done.stderr
    (line,) = [x for x in done.stderr.splitlines() if x.strip()]
    assert "epochs must be a whole number, not inf" in line


# -- fuzzing -------------------------------------------------------------------------------------

_KEYS = [f for f in vars(RunConfig()) if f != "theme"] + ["theme", "models", "run", "prices", "bogus"]

_scalar = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["imagined", "qualityflow", "zeroshot", "critic", "openai/x", "3", "inf", "true"]),
)
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(_KEYS), inner, max_size=3)),
    max_leaves=6,
)


@seed(2026)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(table=st.dictionaries(st.sampled_from(_KEYS), _value, max_size=4), under_run=st.booleans())
def test_any_toml_values_give_a_valid_config_or_one_line(tmp_path, table, under_run):
    doc = tomlkit.document()
    try:
        target = doc
        if under_run:
            target = tomlkit.table()
            doc["run"] = target
        for key, value in table.items():
            target[key] = value
        text = tomlkit.dumps(doc)
    except Exception:  # a value tomlkit cannot write is not a config file
        return
    f = tmp_path / "fuzz.toml"
    f.write_text(text, encoding="utf-8")
    try:
        config = load_config(f, env={})
    except ConfigError as exc:
        message = str(exc)
        assert message.startswith(str(f)) and "\n" not in message and "Traceback" not in message
        return
    # Whatever was accepted is a config a run can use.
    assert validate(config) is config
    for name, value in vars(config).items():
        if name == "workflow_settings":  # a plugin's settings: none given here
            assert value == {}, value
            continue
        default = getattr(RunConfig, name)
        if isinstance(default, float):
            assert isinstance(value, float) and math.isfinite(value), name
        elif isinstance(default, bool):
            assert isinstance(value, bool), name
        elif isinstance(default, int):
            assert type(value) is int, name
