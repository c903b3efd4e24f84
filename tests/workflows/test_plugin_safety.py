"""A broken, careless or hostile workflow plugin is refused with one line that
names it and says why, in every command, `qflow doctor` and the compose
screen; it never takes qflow down (sys.exit, KeyboardInterrupt, a hang at
import), never replaces a built-in whatever the sys.path order, and nothing it
says reaches the terminal raw.

Each plugin is a module and a dist-info written into a folder of its own, put
on the path of child processes only (no other test sees it)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from qflow_tui.core import plugins
from qflow_tui.core.config import FIELDS
from qflow_tui.core.workflows import RESERVED, WORKFLOWS, PluginRefused, checked_spec
from qflow_tui.core.workflows.values import all_settings
from tests.helpers import MBPP11, assert_terminal_safe, install_distribution, plugin_env, run_with

#: What must never reach a terminal from a plugin: OSC (a title, a clipboard
#: write), CSI (clear the screen), a bidi override.
HOSTILE = "\x1b]0;pwned\x07\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2J\u202e"


def install(site: Path, distribution: str, entries: dict[str, str], modules: dict[str, str]) -> None:
    install_distribution(site, distribution, "qflow.workflows", entries, modules)


def env_with(*sites: Path, **extra: str) -> dict[str, str]:
    return plugin_env(*sites, plugin_timeout="1.5", **extra)


def qflow(env: dict[str, str], *args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_with(env, *args, code=code, timeout=180)


assert_safe = assert_terminal_safe


def spec_source(name: str, **fields: str) -> str:
    """A module defining SPEC; ``fields`` replace the defaults (Python source)."""
    values = {
        "name": repr(name),
        "summary": repr(f"{name}: one writer call"),
        "agents": '(Agent("writer", "Writer", "WR"),)',
        "settings": "()",
        "plan": 'lambda config: [PlannedStep("writer", "write", ("writer",))]',
        "visible_tests": 'lambda config: "shown"',
        "runner": '"qflow_plainshot.run:run_plainshot"',
        **fields,
    }
    args = ",\n    ".join(f"{k}={v}" for k, v in values.items())
    return (
        "from qflow_tui.core.workflows import Agent, PlannedStep, Setting, WorkflowSpec\n"
        f"SPEC = WorkflowSpec(\n    {args},\n)\n"
    )


#: The plugins of one crowded site: (entry name, module name, source).
CROWD = {
    "exits": "import sys\nsys.exit(0)\n",
    "interrupts": "raise KeyboardInterrupt\n",
    "hangs": "import time\ntime.sleep(600)\n",
    "raises": f"raise RuntimeError({('bad ' + HOSTILE + ' luck')!r})\n",
    "badrank": spec_source("badrank", rank="'high'"),
    "badagents": spec_source("badagents", agents="[('writer', 'Writer', 'WR')]"),
    "badsetting": spec_source("badsetting", settings="(Setting('show', 'doc', default=[1]),)"),
    "thief": spec_source("thief", settings="(Setting('json', 'print json', default=True),)"),
    "runwide": spec_source("runwide", settings="(Setting('model', 'the model', default='x'),)"),
    "badplan": spec_source("badplan", plan="lambda config: [1, 2]"),
    "planfails": spec_source("planfails", plan="lambda config: 1 / 0"),
    "loud": (
        f"print({HOSTILE!r} + 'hello from loud')\n"
        + spec_source(
            "loud",
            summary=repr(f"loud {HOSTILE} summary"),
            agents=f'(Agent("writer", {("Wr" + HOSTILE + "iter")!r}, "WR"),)',
            settings=f"(Setting('volume', {('how loud ' + HOSTILE)!r}, default=3),)",
            plan=f'lambda config: [PlannedStep("writer", {("wr" + HOSTILE + "ite")!r}, ("writer",))]',
        )
    ),
    "qualityflow": spec_source("qualityflow", summary="'an impostor'"),
    "sneaky": spec_source("agentcoder", summary="'another impostor'"),
    "fine": spec_source("fine"),
    # Reads the registry while it loads: it gets the built-ins, and does not wait on itself.
    "reader": "from qflow_tui.core.workflows import WORKFLOWS\nassert 'qualityflow' in WORKFLOWS\n"
    + spec_source("reader"),
}


@pytest.fixture(scope="module")
def crowd(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("crowd")
    install(
        site,
        "qflow_crowd",
        {k: f"qflow_crowd_{k}:SPEC" for k in CROWD},
        {f"qflow_crowd_{k}": v for k, v in CROWD.items()},
    )
    return site


def refusals(stderr: str) -> dict[str, str]:
    out = {}
    for line in stderr.splitlines():
        if line.startswith("qflow: a workflow could not be loaded: "):
            rest = line.removeprefix("qflow: a workflow could not be loaded: ")
            out[rest.split(" ", 1)[0]] = rest
    return out


def test_every_bad_plugin_is_named_with_its_reason_and_the_rest_run(crowd):
    started = time.monotonic()
    out = qflow(env_with(crowd), "workflows", "--json")
    assert out.returncode == 0, out.stderr
    assert time.monotonic() - started < 60  # the hanging plugin is given 1.5 s, not forever
    assert_safe(out.stdout, out.stderr)
    names = [w["name"] for w in json.loads(out.stdout)["workflows"]]  # nothing a plugin printed is in the JSON
    assert names == [*WORKFLOWS, "fine", "loud", "reader"]
    said = refusals(out.stderr)
    assert set(said) == set(CROWD) - {"fine", "loud", "reader"}, out.stderr
    assert "it called sys.exit(0) while loading" in said["exits"]
    assert said["interrupts"].endswith(": KeyboardInterrupt")
    assert "did not finish loading within 1.5 s (it hangs at import)" in said["hangs"]
    assert "RuntimeError: bad ]0;pwned" not in said["raises"] and "RuntimeError: bad" in said["raises"]
    assert "its spec's rank is 'high' (a str), not a whole number" in said["badrank"]
    assert "its spec's agents is" in said["badagents"]
    assert "its default must be a bool, int, float or str, not list" in said["badsetting"]
    assert "would take the flag --json" in said["thief"]
    assert "would take the flag --model" in said["runwide"]
    assert "what its plan returned[0] is 1 (an int), not a PlannedStep" in said["badplan"]
    assert "its plan failed: ZeroDivisionError" in said["planfails"]
    assert "named like the built-in workflow 'qualityflow'" in said["qualityflow"]
    assert "named like the built-in workflow 'agentcoder'" in said["sneaky"]


def test_what_a_plugin_says_is_shown_clean(crowd):
    env = env_with(crowd)
    out = qflow(env, "workflows", "loud")
    assert out.returncode == 0, out.stderr
    assert_safe(out.stdout, out.stderr)
    assert "loud ]0;pwned" not in out.stdout
    assert "loud" in out.stdout and "summary" in out.stdout and "Writer (writer)" not in out.stdout
    assert "how loud" in out.stdout
    # Its plan's labels, asked at run time, are cleaned each time too.
    code = (
        "from qflow_tui.core.workflows import WORKFLOWS\n"
        "from qflow_tui.core.config import RunConfig\n"
        "spec = WORKFLOWS['loud']\n"
        "print(repr([s.label for s in spec.plan(RunConfig(workflow='loud'))]))\n"
        "print(repr(spec.summary), repr(spec.agents[0].label), repr(spec.settings[0].doc))\n"
    )
    printed = qflow(env, code=code)
    assert printed.returncode == 0, printed.stderr
    assert "\\x1b" not in printed.stdout and "\\u202e" not in printed.stdout, printed.stdout


@pytest.mark.parametrize("command", [["sessions"], ["solve", "--help"], ["models"], ["doctor", "--no-probes"]])
def test_every_command_still_works_and_names_them(crowd, tmp_path, command):
    out = qflow(env_with(crowd), *command)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip()
    assert_safe(out.stdout, out.stderr)
    assert {"exits", "badrank", "qualityflow", "hangs"} <= set(refusals(out.stderr)), out.stderr


def test_doctor_names_them_and_what_they_printed(crowd):
    out = qflow(env_with(crowd), "doctor", "--no-probes")
    assert out.returncode == 0, out.stderr
    assert_safe(out.stdout)
    assert "workflow plugins:" in out.stdout
    assert "refused: badrank (qflow_crowd_badrank:SPEC): its spec's rank is 'high'" in out.stdout
    assert "hello from loud" in out.stdout
    data = json.loads(qflow(env_with(crowd), "doctor", "--json", "--no-probes").stdout)
    assert any(line.startswith("exits (") for line in data["plugins"]["refused"])


def test_a_builtin_stays_whatever_the_path_order(tmp_path):
    site = tmp_path / "site"
    install(
        site,
        "qflow_impostor",
        {"qualityflow": "qflow_impostor:SPEC"},
        {"qflow_impostor": spec_source("qualityflow", summary="'impostor'")},
    )
    code = (
        "import sys\n"
        "sys.path.{how}({site!r})\n"
        "from qflow_tui.core.workflows import WORKFLOWS, broken_plugins\n"
        "print(WORKFLOWS['qualityflow'].summary)\n"
        "print(broken_plugins())\n"
    )
    for how in ("append", "insert(0, "):
        source = code.replace(
            "{how}({site!r})", f"{how}({str(site)!r})" if how == "append" else f"insert(0, {str(site)!r})"
        )
        out = qflow(env_with(tmp_path), code=source)
        assert out.returncode == 0, out.stderr
        first, second = out.stdout.splitlines()
        assert first.startswith("QualityFlow:"), how
        assert "named like the built-in workflow 'qualityflow'" in second


def test_two_plugins_with_one_name_are_both_refused(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    install(a, "qflow_twin_a", {"twin": "qflow_twin_a:SPEC"}, {"qflow_twin_a": spec_source("twin")})
    install(b, "qflow_twin_b", {"twin": "qflow_twin_b:SPEC"}, {"qflow_twin_b": spec_source("twin")})
    for order in ((a, b), (b, a)):
        out = qflow(env_with(*order), "workflows", "--json")
        assert out.returncode == 0, out.stderr
        assert "twin" not in [w["name"] for w in json.loads(out.stdout)["workflows"]]
        assert out.stderr.count("another plugin also names its workflow 'twin'") == 2, out.stderr


def test_a_run_asking_for_a_refused_plugin_says_why(crowd, tmp_path):
    out = qflow(
        env_with(crowd),
        "solve",
        *MBPP11,
        "--workflow",
        "badrank",
        "--session-dir",
        str(tmp_path),
    )
    assert out.returncode == 2
    assert_safe(out.stderr)
    assert "the workflow badrank (qflow_crowd_badrank:SPEC) was not loaded: its spec's rank is 'high'" in out.stderr


def test_the_compose_screen_names_them(crowd):
    code = textwrap.dedent(
        """
        import asyncio
        from textual.widgets import Static
        from qflow_tui.core.config import RunConfig
        from qflow_tui.ui.app import create_app
        async def main():
            app = create_app(RunConfig(model='script/tests/scripts/mbpp11.py'), remember_theme=False)
            async with app.run_test(size=(160, 48)) as pilot:
                await pilot.pause()
                notice = app.screen_stack[0].query_one('#compose-notices', Static)
                print(repr(str(notice.content)))
        asyncio.run(main())
        """
    )
    out = qflow(env_with(crowd), code=code)
    assert out.returncode == 0, out.stderr
    shown = out.stdout
    assert "workflow plugin not loaded: exits (qflow_crowd_exits:SPEC): it called sys.exit(0)" in shown, shown
    assert "hangs at import" in shown and "10 more plugins not loaded: `qflow doctor` says why" in shown
    assert "\\x1b" not in shown


# -- in process: the checks themselves -----------------------------------------------------------


def test_a_plugin_setting_cannot_take_a_flag_of_the_commands():
    """RESERVED holds every option of the commands that take the workflows'
    flags that is not a setting: a plugin's setting with one of those keys
    would make argparse fail in every command."""
    from qflow_tui import cli

    parser = cli.build_parser()
    setting_flags = {f for s in all_settings() for f in (s.flag, "--no-" + s.flag[2:])}
    names: set[str] = set()

    def walk(p: argparse.ArgumentParser) -> None:
        for action in p._actions:
            for option in action.option_strings:
                if option.startswith("--") and option not in setting_flags:
                    names.add(option[2:].removeprefix("no-").replace("-", "_"))
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)

    walk(parser)
    assert names - set(FIELDS) <= RESERVED, sorted(names - set(FIELDS) - RESERVED)


def test_a_checked_spec_is_the_same_where_nothing_was_wrong():
    spec = WORKFLOWS["zeroshot"]
    twin = checked_spec(spec, list(WORKFLOWS.values()))
    assert twin.summary == spec.summary and twin.agents == spec.agents
    assert twin.plan(__import__("qflow_tui.core.config", fromlist=["RunConfig"]).RunConfig()) == spec.plan(
        __import__("qflow_tui.core.config", fromlist=["RunConfig"]).RunConfig()
    )


def test_bounded_contains_base_exceptions_and_hangs():
    with pytest.raises(PluginRefused, match=r"sys.exit\(3\)"):
        plugins.bounded(lambda: sys.exit(3), 5, "x")
    with pytest.raises(PluginRefused, match="KeyboardInterrupt"):
        plugins.bounded(lambda: (_ for _ in ()).throw(KeyboardInterrupt), 5, "x")
    import threading

    gate = threading.Event()
    with pytest.raises(PluginRefused, match="hangs at import"):
        plugins.bounded(gate.wait, 0.2, "x")
    gate.set()  # lets the thread left behind end
