"""The core never imports Textual: it must run headless and be testable alone."""

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "qflow_tui" / "core"


def test_no_core_module_imports_textual():
    offenders = []
    for path in CORE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            if any(n == "textual" or n.startswith("textual.") for n in names):
                offenders.append(str(path.relative_to(CORE)))
    assert offenders == []


def test_importing_the_whole_core_loads_no_textual():
    code = (
        "import sys, pkgutil, importlib, qflow_tui.core as c\n"
        "for m in pkgutil.walk_packages(c.__path__, 'qflow_tui.core.'):\n"
        # The evaluator's check programs are files the sandbox runs with their
        # values filled in (core/bench/checks/__init__.py), not modules to import.
        "    if m.name.startswith('qflow_tui.core.bench.checks.') and not m.ispkg:\n"
        "        continue\n"
        "    importlib.import_module(m.name)\n"
        "print(any(k == 'textual' or k.startswith('textual.') for k in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


#: Provider SDKs cost seconds to import (anthropic alone about 2.6 s here): they are
#: loaded when a run builds its client, never for help text or the first screen.
SDKS = ("anthropic", "openai")

_LOADED = "print(sorted({m.split('.')[0] for m in sys.modules} & {'anthropic', 'openai'}))\n"


def _loaded_sdks(code: str, tmp_path: Path) -> str:
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path), "PATH": "/usr/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, timeout=120)
    return out.stdout.strip().splitlines()[-1]


def test_help_imports_no_provider_sdk(tmp_path):
    code = (
        "import sys, contextlib, io\n"
        "from qflow_tui import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    for argv in (['--help'], ['solve', '--help'], ['sessions', '--help']):\n"
        "        try:\n"
        "            cli.main(argv)\n"
        "        except SystemExit:\n"
        "            pass\n" + _LOADED
    )
    assert _loaded_sdks(code, tmp_path) == "[]"


def test_first_screen_imports_no_provider_sdk(tmp_path):
    code = (
        "import sys, asyncio\n"
        "from qflow_tui.ui.app import create_app\n"
        "from qflow_tui.core.config import RunConfig\n"
        "async def main():\n"
        "    app = create_app(RunConfig(), remember_theme=False)\n"
        "    async with app.run_test(size=(100, 30)) as pilot:\n"
        "        await pilot.pause()\n"
        # Without a key the three ways in (FirstMinuteScreen) stand over the form.
        "        assert [type(s).__name__ for s in app.screen_stack][:1] == ['ComposeScreen'], app.screen_stack\n"
        "asyncio.run(main())\n" + _LOADED
    )
    assert _loaded_sdks(code, tmp_path) == "[]"


def test_the_run_screen_is_imported_on_a_thread_once_the_form_is_up(tmp_path):
    # Imported in the loop at the first Ctrl+R it stalled the app about 0.1 s:
    # not at start-up, but on a thread after the first paint, and with no SDK.
    code = (
        "import sys, asyncio, threading, time\n"
        "from qflow_tui.ui.app import create_app\n"
        "from qflow_tui.core.config import RunConfig\n"
        "from qflow_tui.ui.screens.warm_up import RUN_MODULE\n"
        "async def main():\n"
        "    app = create_app(RunConfig(), remember_theme=False)\n"
        "    assert RUN_MODULE not in sys.modules, 'imported before the form'\n"
        "    async with app.run_test(size=(100, 30)) as pilot:\n"
        "        await pilot.pause()\n"
        # The warm-up thread starts after the first paint, which a busy machine
        # delays: wait for it to have started and ended, not for a moment.
        "        deadline = time.monotonic() + 120\n"
        "        while time.monotonic() < deadline:\n"
        "            warming = any(t.name == 'warm up' for t in threading.enumerate())\n"
        "            if RUN_MODULE in sys.modules and not warming:\n"
        "                break\n"
        "            await pilot.pause(0.05)\n"
        "        assert RUN_MODULE in sys.modules, 'not warmed up'\n"
        "asyncio.run(main())\n" + _LOADED
    )
    assert _loaded_sdks(code, tmp_path) == "[]"


def test_with_its_key_set_the_models_sdk_is_warmed_up_too(tmp_path):
    # Imported at the first Ctrl+R, the SDK froze the app one to three seconds.
    code = (
        "import sys, asyncio, threading, os, time\n"
        "os.environ['ANTHROPIC_API_KEY'] = 'sk-test'\n"
        "from qflow_tui.ui.app import create_app\n"
        "from qflow_tui.core.config import RunConfig\n"
        "async def main():\n"
        "    app = create_app(RunConfig(model='anthropic/claude-sonnet-5-5'), remember_theme=False)\n"
        "    async with app.run_test(size=(100, 30)) as pilot:\n"
        "        await pilot.pause()\n"
        "        deadline = time.monotonic() + 120\n"
        "        while time.monotonic() < deadline:\n"
        "            warming = any(t.name == 'warm up' for t in threading.enumerate())\n"
        "            if 'anthropic' in sys.modules and not warming:\n"
        "                break\n"
        "            await pilot.pause(0.05)\n"
        "asyncio.run(main())\n" + _LOADED
    )
    assert _loaded_sdks(code, tmp_path) == "['anthropic']"


#: What the first paint of the form never needs: the workflows' implementations
#: and their agents (about 60 ms of the launch); descriptions are enough.
_HEAVY = (
    "def heavy():\n"
    "    impl = ('qflow_tui.core.agents', 'qflow_tui.core.context')\n"
    "    parts = [m.split('.') for m in sys.modules if m.startswith('qflow_tui.core.workflows.')]\n"
    "    # a workflow's package (its spec) is light; a module inside it is its implementation\n"
    "    agents = {'.'.join(p) for p in parts if len(p) > 4}\n"
    "    return sorted(m for m in sys.modules if m in agents or m.startswith(impl))\n"
)


def test_the_app_paints_its_form_before_importing_any_workflows_implementation(tmp_path):
    code = (
        "import sys, asyncio\n" + _HEAVY + "from textual import events\n"
        "seen = []\n"
        "ready_init = events.Ready.__init__\n"
        "def ready(self, *a, **k):\n"
        "    ready_init(self, *a, **k)\n"
        "    seen.append(heavy())\n"
        "events.Ready.__init__ = ready\n"
        "from textual.app import App\n"
        "async def run(app):\n"
        "    async with app.run_test(size=(100, 30)) as pilot:\n"
        "        await pilot.pause()\n"
        "App.run = lambda app, **_: asyncio.run(run(app))\n"
        "from qflow_tui.cli import main\n"
        "main(['--workflow', 'codetree'])\n"
        "print(seen)\n"
    )
    assert _loaded_sdks(code, tmp_path) == "[[]]"


def test_a_workflows_implementation_is_imported_when_a_run_asks_for_it(tmp_path):
    code = (
        "import sys\n"
        "from qflow_tui.core.workflows import get_workflow\n"
        "assert 'qflow_tui.core.workflows.codetree.code_tree' not in sys.modules\n"
        "run = get_workflow('codetree').run\n"
        "print(run.__module__, run.__name__)\n"
    )
    assert _loaded_sdks(code, tmp_path) == "qflow_tui.core.workflows.codetree.code_tree run_codetree"


def test_the_check_sees_an_sdk_import(tmp_path):
    # The probe itself must be able to fail.
    assert _loaded_sdks("import sys, openai\n" + _LOADED, tmp_path) == "['openai']"


def test_a_script_model_run_imports_no_provider_sdk(tmp_path):
    # Pricing the run at its end once imported the openai SDK for a URL helper:
    # a second-long stall of the app's event loop as the run finished.
    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys, asyncio\n"
        "from pathlib import Path\n"
        "from qflow_tui.core.config import RunConfig\n"
        "from qflow_tui.core.llm import make_client\n"
        "from qflow_tui.core.problem import make_problem\n"
        "from qflow_tui.core.workflow_run import run_workflow\n"
        f"data = Path({str(root / 'tests' / 'data' / 'mbpp11')!r})\n"
        "problem = make_problem((data / 'problem.txt').read_text(), (data / 'tests.py').read_text())\n"
        f"cfg = RunConfig(model='script/{root / 'tests' / 'scripts' / 'mbpp11.py'}').replace(prompts=1)\n"
        "asyncio.run(run_workflow(problem, cfg, client=make_client(cfg.model), session_dir=Path(sys.argv[1])))\n"
        + _LOADED
    )
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path), "PATH": "/usr/bin"}
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"
