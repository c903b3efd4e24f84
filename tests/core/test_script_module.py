"""``--model script/<package.module>`` (issue 54): a script model an installed
package ships, found by its module name from any folder, as MapCoder's is
(``script/qflow_mapcoder.script_model``); a path still ends in ``.py``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from qflow_tui.core.llm import LLMError
from qflow_tui.core.llm.script import ScriptClient, script_missing, script_module_name
from tests.helpers import ROOT, install_distribution, plugin_env

EXAMPLE = ROOT / "examples" / "mapcoder"


@pytest.mark.parametrize(
    ("spec", "module"),
    [
        ("qflow_mapcoder.script_model", "qflow_mapcoder.script_model"),
        ("responder", "responder"),
        ("responder.py", None),
        ("qflow_mapcoder/script_model.py", None),
        ("examples/mapcoder/qflow_mapcoder/script_model", None),
        ("/abs/responder.py", None),
        ("my-responder", None),
        ("a..b", None),
    ],
)
def test_a_dotted_name_is_a_module_and_a_path_is_a_file(spec: str, module: str | None) -> None:
    assert script_module_name(spec) == module


def test_a_module_that_is_not_installed_or_answers_nothing_is_one_line(tmp_path: Path, monkeypatch) -> None:
    message = script_missing("qflow_no_such_pkg.script_model")
    assert message is not None and "no such module is installed" in message and "script/<package.module>" in message
    with pytest.raises(LLMError, match="no such module is installed"):
        ScriptClient("qflow_no_such_pkg.script_model")
    (tmp_path / "qflow_silent_script.py").write_text("ANSWER = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(LLMError, match=r"'qflow_silent_script' defines no respond\(request\) function"):
        ScriptClient("qflow_silent_script")


def test_mapcoders_script_model_runs_from_any_folder_by_its_module_name(tmp_path: Path) -> None:
    """The user's view: the plugin installed (its package on the path, its
    entry in a dist-info), ``qflow solve`` run from a folder that holds none of it."""
    site = tmp_path / "site"
    install_distribution(site, "qflow_mapcoder", "qflow.workflows", {"mapcoder": "qflow_mapcoder:SPEC"}, {})
    env = plugin_env(site, plugin_timeout="60")
    env["PYTHONPATH"] = f"{site}:{EXAMPLE}:{ROOT}"
    elsewhere = tmp_path / "elsewhere"  # holds neither the script nor the package
    elsewhere.mkdir()
    args = [
        "solve",
        "--workflow",
        "mapcoder",
        "--problem",
        str(EXAMPLE / "problems" / "add-two.json"),
        "--model",
        "script/qflow_mapcoder.script_model",
        "--json",
        "--session-dir",
        str(tmp_path / "s"),
    ]
    argv = [sys.executable, "-m", "qflow_tui.cli", *args]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=elsewhere, timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["outcome"] == "accepted", summary
    header = json.loads(Path(summary["session"]).read_text(encoding="utf-8").splitlines()[0])
    assert header["model"] == "script/qflow_mapcoder.script_model"
