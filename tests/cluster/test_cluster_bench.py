"""``qflow bench --cluster`` on a real two-node cluster on this machine: the
same verdicts as a local bench, problem by problem, spread over both nodes;
a node killed half-way costs only its work in flight; Ctrl+C stops the
cluster's work and the same command resumes."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="Ray is not installed: pip install -e '.[ray]'"),
    pytest.mark.xdist_group("ray-cluster"),  # one xdist worker, one cluster for the session
]


def write_problems(*args):
    """bench/cluster.py's generator: CodeContests-style problems and a script model."""
    return sys.modules["qflow_bench_cluster"].write_problems(*args)  # loaded by the cluster fixture


def _children(pid: int) -> set[int]:
    return sys.modules["qflow_bench_cluster"]._children(pid)


def _env(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "QFLOW_CLUSTER"))}
    env.update(QFLOW_CLUSTER_ANSWERS=str(data / "answers.json"), RAY_USAGE_STATS_ENABLED="0")
    return env


def _cmd(problems: Path, model: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "qflow_tui.cli", "bench", "--dataset", "codecontests", "--dataset-file", str(problems),
        "--model", f"script/{model}", "--workflow", "zeroshot", "--out", str(out), "--concurrency", "6", *extra,
    ]  # fmt: skip


def _lines(out: Path) -> list[dict]:
    path = out / "results.jsonl"
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _wait(what, timeout: float = 240.0, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if proc is not None and proc.poll() is not None:  # the bench ended first: say how
            _out, err = proc.communicate()
            raise AssertionError(f"the bench ended (exit {proc.returncode}) before the condition: {err[-2000:]}")
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def test_same_verdicts_as_local_spread_over_both_nodes(cluster, tmp_path: Path) -> None:
    problems, model, right = write_problems(tmp_path / "data", 6, 20)
    env = _env(tmp_path / "data")
    local = subprocess.run(_cmd(problems, model, tmp_path / "local"), env=env, capture_output=True, text=True)
    assert local.returncode == 0, local.stderr
    there = subprocess.run(
        _cmd(problems, model, tmp_path / "cluster", "--cluster", cluster.address),
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert there.returncode == 0, there.stderr
    assert "judging on the Ray cluster" in there.stderr and "2 nodes" in there.stderr, there.stderr
    here = {r["id"]: r for r in _lines(tmp_path / "local")}
    away = {r["id"]: r for r in _lines(tmp_path / "cluster")}
    assert len(away) == len(_lines(tmp_path / "cluster")) == 6
    for pid, expected in right.items():
        assert here[pid]["passed"] is away[pid]["passed"] is expected, pid
        assert here[pid]["verdict"]["status"] == away[pid]["verdict"]["status"], pid
        assert "node" not in here[pid]
    assert len({r["node"] for r in away.values()}) == 2  # both nodes judged
    report = (tmp_path / "cluster" / "report.md").read_text()
    assert "Judged on a Ray cluster of 2 nodes" in report


def test_a_node_killed_half_way_loses_nothing(cluster, tmp_path: Path) -> None:
    extra = cluster.add_worker(f"{cluster.tag}-doomed")
    # Each program sleeps on each test: the doomed node is still judging when it
    # is killed, at rest as under load (at rest the bench took 2.5 s in all).
    problems, model, right = write_problems(tmp_path / "data", 10, 20, 7, 0.2)
    out = tmp_path / "b"
    proc = subprocess.Popen(
        _cmd(problems, model, out, "--cluster", cluster.address),
        env=_env(tmp_path / "data"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        # Half-way: some problems written, and the doomed node judging one now.
        raylet = cluster.raylet_pid(extra)
        _wait(lambda: len(_lines(out)) >= 3 and _judging(raylet), proc=proc)
        os.kill(raylet, signal.SIGKILL)
        report, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    lines = _lines(out)
    assert sorted(r["id"] for r in lines) == sorted(right)  # every problem once
    assert {r["id"]: r["passed"] for r in lines} == right  # verdicts as a local bench gives them
    lost = [x for x in err.splitlines() if x.startswith("qflow: cluster:") and "was lost" in x]
    assert len(lost) == 1, err
    assert report.startswith("# Bench") and "[state-dump]" not in report + err  # Ray's own logs stay out


def test_ctrl_c_stops_the_cluster_work_and_the_same_command_resumes(cluster, tmp_path: Path) -> None:
    problems, model, right = write_problems(tmp_path / "data", 8, 20, 7, 0.2)
    out = tmp_path / "b"
    cmd = _cmd(problems, model, out, "--cluster", cluster.address)
    env = _env(tmp_path / "data")
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait(lambda: len(_lines(out)) >= 2, proc=proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "rerun the same command to resume" in err
    # Nothing keeps judging for the stopped bench: no sandboxed program left under the cluster.
    _wait(lambda: not any(_judging(p) for p in cluster.pids()), timeout=60)
    first = len(_lines(out))
    assert first < len(right)
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    lines = _lines(out)
    assert sorted(r["id"] for r in lines) == sorted(right)  # resumed, each once
    assert {r["id"]: r["passed"] for r in lines} == right


def _judging(pid: int) -> bool:
    """Whether a Ray worker under ``pid`` is judging a program (or a sandbox child of one runs)."""
    return any("judge_on_node" in _cmdline(c) or "bwrap" in _cmdline(c) for c in _children(pid))


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""
