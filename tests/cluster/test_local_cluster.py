"""bench/cluster.py's LocalCluster against a stand-in ``ray`` command: how it
picks ports, and what it ends when a node does not start. Runs without Ray.

The stand-in starts one long-lived process per node, named by the node (as
Ray's raylet is), and fails the first ``FAKE_RAY_FAIL`` worker starts, as
``ray start`` does when a port it was given is taken before it binds it."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

FAKE_RAY = """\
import json, os, subprocess, sys
from pathlib import Path

args = sys.argv[1:]
state = Path(os.environ["FAKE_RAY_STATE"])
calls = state / "calls.jsonl"
with calls.open("a") as f:
    f.write(json.dumps(args) + "\\n")
name = args[args.index("--node-name") + 1]
subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(600)", f"--node-name={name}"],
    start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)
if "--head" in args:
    # Ray's client server: an orphan whose command line names neither the
    # temp dir nor a node, only the port it was given.
    port = args[args.index("--ray-client-server-port") + 1]
    subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)", "ray.util.client.server", f"--port={port}"],
        start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
if "--head" not in args:
    tries = state / "worker-starts"
    n = int(tries.read_text()) if tries.exists() else 0
    tries.write_text(str(n + 1))
    if n < int(os.environ.get("FAKE_RAY_FAIL", "0")):
        sys.exit("ValueError: Ray component metrics_export is trying to use a port number that is used")
"""


@pytest.fixture
def fake_ray(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / "state"
    state.mkdir()
    ray = tmp_path / "ray"
    ray.write_text(f"#!{sys.executable}\n{FAKE_RAY}")
    ray.chmod(0o755)
    monkeypatch.setenv("FAKE_RAY_STATE", str(state))
    return ray


def _calls(fake_ray: Path) -> list[list[str]]:
    lines = (fake_ray.parent / "state" / "calls.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def _ports(call: list[str]) -> list[int]:
    return [int(call[i + 1]) for i, arg in enumerate(call) if arg.endswith("-port")]


def _gone(cluster: object, needle: str) -> bool:
    deadline = time.monotonic() + 30
    while cluster.pids(needle):  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_free_ports_are_distinct_and_skip_the_ones_taken(bench_cluster: ModuleType) -> None:
    first = bench_cluster.free_ports(40)
    assert len(set(first)) == 40
    again = bench_cluster.free_ports(40, set(first))
    assert len(set(again)) == 40 and not set(again) & set(first)


def test_a_worker_that_fails_to_start_is_tried_again_and_the_head_keeps_running(
    bench_cluster: ModuleType, fake_ray: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_RAY_FAIL", "2")
    cluster = bench_cluster.LocalCluster(fake_ray, workers=0, tag="qflow-fake")
    try:
        name = cluster.add_worker(f"{cluster.tag}-w")
        assert cluster.workers == [name]
        # Three worker starts: the two that failed were ended, the third kept.
        assert len(_calls(fake_ray)) == 4
        assert len(cluster.pids(f"--node-name={name}")) == 1
        assert len(cluster.pids(f"--node-name={cluster.tag}-head")) == 1
        # No port was given twice, within one start or across them.
        ports = [p for call in _calls(fake_ray) for p in _ports(call)]
        assert len(ports) == len(set(ports)) == 3 + 4 * 6  # the head: --port, dashboard, client

        # A worker that never starts: an error saying so, and the head still runs.
        cluster.env["FAKE_RAY_FAIL"] = "99"  # the cluster's nodes see the environment it was made with
        with pytest.raises(RuntimeError, match=r"ray start failed 3 times.*port number"):
            cluster.add_worker(f"{cluster.tag}-never")
        assert _gone(cluster, f"--node-name={cluster.tag}-never")
        assert len(cluster.pids(f"--node-name={cluster.tag}-head")) == 1
        assert len(cluster.pids(f"--node-name={name}")) == 1
    finally:
        cluster.stop()
    assert _gone(cluster, f"{cluster.tag}-")


def test_the_heads_client_server_is_ended_with_the_cluster(bench_cluster: ModuleType, fake_ray: Path) -> None:
    # A local cluster's stop left Ray's client server running after every test session.
    cluster = bench_cluster.LocalCluster(fake_ray, workers=0, tag="qflow-fake")
    try:
        needle = f"--port={cluster._client_port}"
        deadline = time.monotonic() + 30
        while not cluster.pids("ray.util.client.server"):
            assert time.monotonic() < deadline, "the stand-in's client server never started"
            time.sleep(0.05)
        (server,) = cluster.pids("ray.util.client.server")
        assert needle in Path(f"/proc/{server}/cmdline").read_bytes().decode().split("\0")
    finally:
        cluster.stop()
    assert not bench_cluster._alive(server)  # by its pid: not through the marks under test
