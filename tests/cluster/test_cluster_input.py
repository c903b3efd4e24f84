"""What ``--cluster`` refuses, each in one line before any model call, and that
a bench without a cluster never imports Ray."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from helpers import qflow

from qflow_tui import __version__
from qflow_tui.core.bench.cluster import (
    ClusterError,
    _probe_task,
    check_nodes,
    cluster_address,
    connect,
    node_facts,
    node_name,
)

HAS_RAY = importlib.util.find_spec("ray") is not None
DATA = Path(__file__).resolve().parents[1] / "data" / "datasets"
STRONG = {"network": True, "signals to the app / other processes": True, "reading/deleting your files": True}
DRIVER = {"qflow": __version__, "ray": "2.60.0", "level": "bwrap+seccomp+uid", "protects": STRONG, "numpy": "1.24.2"}


def node(**changes):
    n = dict(DRIVER, host="box", node_id="abcdef0123456789", bwrap="/usr/bin/bwrap")
    n.update(changes)
    return n


def test_a_node_like_the_driver_is_taken() -> None:
    assert check_nodes(DRIVER, [node(), node(host="other")], mixed=False) == []
    assert node_name(node()) == "box:abcdef01"


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"missing": "No module named 'qflow_tui'"}, "node box:abcdef01 has no qflow installed"),
        ({"qflow": "0.0.1"}, "node box:abcdef01 runs qflow 0.0.1, this driver"),
        ({"ray": "2.59.0"}, "node box:abcdef01 runs ray 2.59.0, this driver 2.60.0"),
        ({"bwrap": None, "level": "seccomp+uid"}, "node box:abcdef01 has no bubblewrap"),
        (
            {"level": "uid", "protects": dict(STRONG, network=False)},
            "node box:abcdef01 judges at uid, weaker than this driver's bwrap+seccomp+uid (it does not stop: network)",
        ),
        ({"numpy": None}, "node box:abcdef01 has no numpy for judged programs"),
        ({"error": "no sandbox can start: no interpreter"}, "node box:abcdef01 cannot judge: no sandbox"),
    ],
)
def test_a_node_that_cannot_judge_as_the_driver_is_refused_by_name(changes, words) -> None:
    with pytest.raises(ClusterError) as err:
        check_nodes(DRIVER, [node(host="fine"), node(**changes)], mixed=False)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_mixed_levels_are_taken_when_asked_with_a_warning_each() -> None:
    weak = node(bwrap=None, level="uid", protects=dict(STRONG, network=False), numpy=None)
    warnings = check_nodes(DRIVER, [weak], mixed=True)
    assert len(warnings) == 3 and all("box:abcdef01" in w for w in warnings)
    with pytest.raises(ClusterError, match="runs qflow 9"):  # versions are never mixed
        check_nodes(DRIVER, [node(qflow="9")], mixed=True)


def test_the_probe_says_qflow_is_missing_where_it_cannot_import_it(tmp_path: Path) -> None:
    """The probe travels by value: an interpreter that has Ray but not qflow runs it."""
    cloudpickle = pytest.importorskip("ray.cloudpickle", reason="Ray is not installed")
    site = sysconfig.get_paths()["purelib"]
    code = (
        "import sys, json, pickle; sys.path.append(sys.argv[1]); "
        "print(json.dumps(pickle.loads(sys.stdin.buffer.read())()))"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code, site], input=cloudpickle.dumps(_probe_task()),
        capture_output=True, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    facts = json.loads(done.stdout)
    assert "qflow_tui" in facts["missing"]
    with pytest.raises(ClusterError, match=r"has no qflow installed.*pip install .qflow-tui\[ray\]=="):
        check_nodes(DRIVER, [facts], mixed=False)


def test_where_the_cluster_is_named(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("QFLOW_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("QFLOW_CLUSTER", raising=False)
    assert cluster_address(None) is None
    (tmp_path / "config.toml").write_text('[bench]\ncluster = "10.0.0.1:6379"\n')
    assert cluster_address(None) == "10.0.0.1:6379"
    monkeypatch.setenv("QFLOW_CLUSTER", "auto")
    assert cluster_address(None) == "auto"
    assert cluster_address("ray://head:10001") == "ray://head:10001"
    assert cluster_address("off") is None
    monkeypatch.delenv("QFLOW_CLUSTER")
    (tmp_path / "config.toml").write_text("[bench]\ncluster = 5\n")
    with pytest.raises(ClusterError, match=r"\[bench\] cluster must be a string"):
        cluster_address(None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _bench(tmp_path: Path, *extra: str, env: dict[str, str] | None = None):
    model = tmp_path / "model.py"
    model.write_text(
        "import pathlib\n"
        f"def respond(request):\n    pathlib.Path({str(tmp_path / 'called')!r}).write_text('x')\n"
        "    return '```python\\nprint(1)\\n```'\n"
    )
    return qflow(
        "bench", "--dataset", "codecontests", "--dataset-file", str(DATA / "codecontests-mini.jsonl"),
        "--model", f"script/{model}", "--workflow", "zeroshot", "--out", str(tmp_path / "b"), *extra,
        env={"QFLOW_CONFIG_DIR": str(tmp_path), "RAY_USAGE_STATS_ENABLED": "0", **(env or {})}, timeout=300,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("how", "words"),
    [
        (["--cluster", "127.0.0.1:{port}"], "cannot reach the Ray cluster at 127.0.0.1:"),
        (["--cluster", "nothing-like-an-address"], "give HOST:PORT"),
        ([], "cannot reach the Ray cluster at 127.0.0.1:"),  # QFLOW_CLUSTER
    ],
)
def test_bad_cluster_input_is_one_line_before_any_model_call(tmp_path: Path, how, words) -> None:
    port = _free_port()
    done = _bench(tmp_path, *[a.format(port=port) for a in how], env={"QFLOW_CLUSTER": f"127.0.0.1:{port}"})
    assert done.returncode != 0
    expected = words if HAS_RAY else "--cluster needs Ray: pip install 'qflow-tui[ray]'"
    assert expected in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "called").exists()


def test_a_bench_without_a_cluster_never_imports_ray(tmp_path: Path) -> None:
    model = tmp_path / "model.py"
    model.write_text("def respond(request):\n    return '```python\\nprint(sum(map(int, input().split())))\\n```'\n")
    args = [
        "bench", "--dataset", "codecontests", "--dataset-file", str(DATA / "codecontests-mini.jsonl"), "--ids", "0",
        "--model", f"script/{model}", "--workflow", "zeroshot", "--out", str(tmp_path / "b"),
    ]  # fmt: skip
    code = (
        "import sys, json\nfrom qflow_tui.cli import main\n"
        f"rc = main({args!r})\n"
        "print(json.dumps([rc, sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.'))]), file=sys.stderr)"
    )
    env = {k: v for k, v in os.environ.items() if k != "QFLOW_CLUSTER"}
    env["QFLOW_CONFIG_DIR"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    rc, ray_modules = json.loads(done.stderr.strip().splitlines()[-1])
    assert rc == 0, done.stderr
    assert ray_modules == []


def test_without_ray_the_cluster_is_refused_in_one_line_and_a_node_says_none(monkeypatch) -> None:
    # As on a machine without the extra, whether or not this one has Ray:
    # ``import ray`` then raises ImportError (a None in sys.modules does that).
    for name in [m for m in sys.modules if m == "ray" or m.startswith("ray.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ClusterError, match=r"^--cluster needs Ray: pip install 'qflow-tui\[ray\]'$"):
        connect("127.0.0.1:1")
    assert node_facts()["ray"] is None


def test_the_config_file_takes_a_bench_table(tmp_path: Path, monkeypatch) -> None:
    from qflow_tui.core.workflows.values import load_config

    monkeypatch.setenv("QFLOW_CONFIG_DIR", str(tmp_path))
    (tmp_path / "config.toml").write_text('max_tokens = 512\n\n[bench]\ncluster = "auto"\n')
    assert load_config().max_tokens == 512  # [bench] is the bench's, not an unknown run setting


def test_the_report_says_nodes_levels_and_a_loss(tmp_path: Path) -> None:
    from qflow_tui.core.bench.cluster import cluster_lines

    assert cluster_lines(tmp_path, []) == []  # judged here: nothing said
    (tmp_path / "cluster.json").write_text(
        json.dumps({"nodes": [{"node": "a:1", "level": "bwrap+seccomp+uid"}, {"node": "b:2", "level": "uid"}],
                    "lost": ["b:2"], "redone": 3})
    )  # fmt: skip
    records = [{"status": "done", "node": "a:1"}, {"status": "done", "node": "a:1"}, {"status": "done", "node": "b:2"}]
    assert cluster_lines(tmp_path, records) == [
        "Judged on a Ray cluster of 2 nodes (1 at bwrap+seccomp+uid, 1 at uid); runs per node: a:1 2, b:2 1.",
        "Lost during the bench: b:2; 3 judging tasks ran again on other nodes.",
    ]


def test_the_lost_node_line() -> None:
    from qflow_tui.core.bench.cluster import Cluster

    c = Cluster("127.0.0.1:1", DRIVER, [node()])
    assert c.summary() is None  # nothing lost: nothing said
    c.lost.append("box:abcdef01")
    assert c.summary() == (
        "cluster: box:abcdef01 was lost while idle; no judging was in flight there, nothing was redone or lost"
    )
    c.redone, c.redone_seconds = 2, 3.25
    assert c.summary() == (
        "cluster: box:abcdef01 was lost; 2 judging tasks (in flight for 3.2 s in all) ran again on other nodes, "
        "nothing was lost"
    )
