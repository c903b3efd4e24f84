"""Providers are found through the ``qflow.providers`` entry-point group, the
built-ins too: a third-party provider package gets what a built-in gets
(``qflow models``, ``qflow doctor``, the compose form's Model field, its own
word on what a model lacks, its named models' notes and small settings), and a
broken one is refused in one line that names it, whatever it holds.

Each plugin is a module and a dist-info written into a folder of its own, put
on the path of child processes only (no other test sees it)."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from qflow_tui.core import plugins
from qflow_tui.core.llm import providers
from qflow_tui.core.llm.registry import BUILT_IN, GROUP, PROVIDERS
from tests.helpers import ROOT, assert_terminal_safe, install_distribution, plugin_env, run_with


def install(site: Path, distribution: str, entries: dict[str, str], modules: dict[str, str]) -> None:
    install_distribution(site, distribution, GROUP, entries, modules)


def env_with(site: Path, **extra: str) -> dict[str, str]:
    return plugin_env(site, plugin_timeout="5", **extra)


qflow = run_with
assert_safe = assert_terminal_safe

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\u202e"

#: A provider package: its client plays MBPP 11 with the tests' script model,
#: it needs ECHO_KEY, and it names two models (one tiny, one with a hostile note).
ECHO = f"""
from pathlib import Path
from qflow_tui.core.llm import NamedModel, Need, Provider
from qflow_tui.core.llm.script import ScriptClient

SCRIPT = {str(ROOT / "tests" / "scripts" / "mbpp11.py")!r}


def make(rest, options):
    client = ScriptClient(SCRIPT)
    client.name = "echo/" + rest
    return client


def needs(model, base_url, env):
    if env.get("ECHO_KEY"):
        return None
    return Need("key", "set ECHO_KEY to use " + model + {HOSTILE!r}, "ECHO_KEY")


PROVIDER = Provider(
    "echo",
    make,
    "echo/tiny",
    needs=needs,
    free=True,
    models=(
        NamedModel("tiny", note="echo/tiny is a toy provider: " + {HOSTILE!r} + "it plays MBPP 11", small=True),
        NamedModel("big"),
    ),
)
"""

BROKEN = {
    "raises": "raise RuntimeError('no ' + " + repr(HOSTILE) + " + 'luck')\n",
    "notaprovider": "PROVIDER = 42\n",
    "badprefix": (
        "from qflow_tui.core.llm import Provider\n"
        "PROVIDER = Provider('Bad Prefix', lambda rest, options: None, 'Bad Prefix/x')\n"
    ),
    "anthropic": (
        "from qflow_tui.core.llm import Provider\n"
        "PROVIDER = Provider('anthropic', lambda rest, options: None, 'anthropic/stolen')\n"
    ),
    "badmodels": (
        "from qflow_tui.core.llm import Provider\n"
        "PROVIDER = Provider('badmodels', lambda rest, options: None, 'badmodels/x', models=('x',))\n"
    ),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("providers")
    install(site, "qflow_echo", {"echo": "qflow_echo:PROVIDER"}, {"qflow_echo": ECHO})
    install(
        site,
        "qflow_broken_providers",
        {k: f"qflow_broken_{k}:PROVIDER" for k in BROKEN},
        {f"qflow_broken_{k}": v for k, v in BROKEN.items()},
    )
    return site


def test_each_built_in_is_found_through_the_group():
    found = {e.name: e for e in plugins.entry_points(GROUP)}
    for name, value in BUILT_IN.items():
        assert found[name].value == value and found[name].builtin, name
    assert list(providers()) == list(BUILT_IN)
    assert all(PROVIDERS.entries[name].value == value for name, value in BUILT_IN.items())
    # pyproject.toml registers exactly the built-ins the fallback of an uninstalled checkout names.
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert declared["project"]["entry-points"][GROUP] == BUILT_IN


def test_replay_is_registered_without_importing_the_session_layer():
    code = (
        "import sys\n"
        "from qflow_tui.core.llm import providers\n"
        "print('replay' in providers(), 'qflow_tui.core.session.replay' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    # Found through the group, the module naming it is imported by the loader itself.
    assert out.stdout.split() == ["True", "True"]


def test_a_plugin_providers_models_are_listed_with_the_built_ins(site):
    out = qflow(env_with(site), "models", "--json")
    assert out.returncode == 0, out.stderr
    rows = {r["model"]: r for r in json.loads(out.stdout)["models"]}
    assert rows["echo/tiny"]["source"] == "provider plugin qflow_echo"
    assert "echo/big" in rows and "local/smollm2" in rows
    assert_safe(out.stdout, out.stderr)


def test_the_compose_forms_model_field_completes_them(site):
    code = "from qflow_tui.ui.screens.compose_settings import known_model_names\nprint(known_model_names())\n"
    out = qflow(env_with(site), code=code)
    assert out.returncode == 0, out.stderr
    assert "'echo/tiny'" in out.stdout and "'local/smollm2'" in out.stdout


def test_each_broken_provider_is_refused_in_one_safe_line(site):
    out = qflow(env_with(site), "models")
    assert out.returncode == 0, out.stderr
    assert_safe(out.stdout, out.stderr)
    said = [line for line in out.stderr.splitlines() if line.startswith("qflow: a model provider could not be loaded")]
    text = "\n".join(said)
    assert "raises (qflow_broken_raises:PROVIDER): RuntimeError: no" in text
    assert "notaprovider (qflow_broken_notaprovider:PROVIDER): it is a int, not a Provider" in text
    assert "its prefix 'Bad Prefix' is not a word" in text
    assert "named like the built-in provider 'anthropic'" in text
    assert "its provider's models[0] is" in text
    assert len(said) == len(BROKEN), out.stderr
    doctor = qflow(env_with(site), "doctor", "--no-probes")
    assert doctor.returncode == 0, doctor.stderr
    assert "provider plugins: echo (qflow.providers entry points besides the built-ins)" in doctor.stdout
    assert "refused: raises (qflow_broken_raises:PROVIDER)" in doctor.stdout
    assert_safe(doctor.stdout)


def test_a_plugin_model_without_what_it_needs_is_refused_in_one_line(site, tmp_path):
    out = qflow(
        env_with(site),
        "solve",
        "--problem",
        "tests/data/mbpp11/problem.txt",
        "--tests",
        "tests/data/mbpp11/tests.py",
        "--model",
        "echo/tiny",
        "--session-dir",
        str(tmp_path),
    )
    assert out.returncode == 1, out.stderr  # as a built-in provider's missing key
    assert_safe(out.stderr)
    assert "qflow: set ECHO_KEY to use echo/tiny" in out.stderr
    assert not list(tmp_path.glob("*.jsonl"))


def test_a_plugin_model_runs_end_to_end_with_its_note(site, tmp_path):
    out = qflow(
        env_with(site, ECHO_KEY="x"),
        "solve",
        "--problem",
        "tests/data/mbpp11/problem.txt",
        "--tests",
        "tests/data/mbpp11/tests.py",
        "--model",
        "echo/tiny",
        "--session-dir",
        str(tmp_path),
    )
    assert out.returncode == 0, out.stderr
    assert_safe(out.stdout, out.stderr)
    assert "ACCEPTED" in out.stdout
    sessions = list(tmp_path.glob("*.jsonl"))
    assert len(sessions) == 1
    events = [json.loads(line) for line in sessions[0].read_text(encoding="utf-8").splitlines()]
    assert any(e.get("model") == "echo/tiny" for e in events)
    notes = [e["message"] for e in events if e.get("kind") == "notice" and "toy provider" in e.get("message", "")]
    assert notes and notes[0].startswith("echo/tiny is a toy provider: ") and notes[0].endswith("it plays MBPP 11")
    assert_safe(*notes)


def test_the_app_opens_a_tiny_plugin_model_with_the_small_settings(site):
    code = (
        "import asyncio\n"
        "from qflow_tui.core.config import RunConfig\n"
        "from qflow_tui.core.workflows.values import own_setting\n"
        "from qflow_tui.ui.app import create_app\n"
        "async def main():\n"
        "    app = create_app(RunConfig(model='echo/tiny'), remember_theme=False, env={'ECHO_KEY': 'x'})\n"
        "    async with app.run_test(size=(80, 24)) as pilot:\n"
        "        await pilot.pause()\n"
        "        config = app.screen_stack[0].read_config()\n"
        "        print([own_setting('qualityflow', k).of(config) for k in ('prompts', 'epochs', 'clarify')],"
        " config.max_tokens)\n"
        "asyncio.run(main())\n"
    )
    out = qflow(env_with(site), code=code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[1, 1, 0] 256"
