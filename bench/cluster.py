"""A CodeContests-style bench judged here and on a local two-node Ray cluster.

Generates N problems in CodeContests's own JSONL fields, each with about 200
stdin/stdout tests (public, private and generated), and a script model that
answers each with its program (every fifth one wrong on a hidden test). Runs
``qflow bench --workflow zeroshot`` on them locally, then with ``--cluster``
against a head and a worker node it starts here (``--num-cpus 1`` each, a small
object store, its own ports and temp dir; both ended by their PIDs at the end),
and prints: the wall time of each and their ratio (the cluster path's overhead
on one machine, target <= 1.15x), the problems judged per node and per second
per node, the per-test cost, the per-task overhead (a one-test program judged
as a task, minus the same judged here), and the driver's own CPU per finished
problem. Checks that both benches give the same verdicts, problem by problem.

    python bench/cluster.py [--problems 40] [--tests 200] [--quick]

``--quick``: 6 problems of 40 tests. Needs the ray extra (pip install -e '.[ray]').
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QFLOW = [sys.executable, "-m", "qflow_tui.cli"]

#: The script model: answers a problem with the program its statement names (``[[program N]]``).
MODEL = '''"""Answers each generated problem with the program of its tag."""
import json, os, re


def respond(request):
    text = "\\n".join(m["content"] for m in request["messages"])
    tag = re.search(r"\\[\\[program (\\d+)\\]\\]", text)
    with open(os.environ["QFLOW_CLUSTER_ANSWERS"], encoding="utf-8") as fh:
        answers = json.load(fh)
    return "```python\\n" + answers[tag.group(1)] + "```"
'''

GOOD = "import sys\ndata = sys.stdin.read().split()\nprint(sum(int(x) for x in data[1:]) * {k})\n"
BAD = "import sys\ndata = sys.stdin.read().split()\nprint(sum(int(x) for x in data[1:]) * {k} + (len(data) > 6))\n"


def write_problems(
    folder: Path, n: int, tests: int, seed: int = 7, pause: float = 0.0
) -> tuple[Path, Path, dict[str, bool]]:
    """(the dataset file, the script model, whether each problem's answer is
    right). ``pause``: seconds each program sleeps on each test (not CPU time,
    so never a timeout under CodeContests's rule), to keep a node judging long
    enough for a test to act while it does, whatever the machine's load."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    answers: dict[str, str] = {}
    right: dict[str, bool] = {}
    with open(folder / "problems.jsonl", "w", encoding="utf-8") as fh:
        for i in range(n):
            k = i % 7 + 1
            ins, outs = [], []
            for t in range(tests):
                xs = [rng.randint(-1000, 1000) for _ in range(1 + (t % 9))]
                ins.append(f"{len(xs)}\n{' '.join(map(str, xs))}\n")
                outs.append(f"{sum(xs) * k}\n")
            public = {"input": ins[:1], "output": outs[:1]}
            private = {"input": ins[1:10], "output": outs[1:10]}
            generated = {"input": ins[10:], "output": outs[10:]}
            fh.write(
                json.dumps(
                    {
                        "name": f"{i}_A. Scaled sum {i}",
                        "description": f"[[program {i}]] Read n, then n integers; print their sum times {k}.",
                        "public_tests": public,
                        "private_tests": private,
                        "generated_tests": generated,
                        "time_limit": {"seconds": 2, "nanos": 0},
                        "memory_limit_bytes": 256 * 1024 * 1024,
                    }
                )
                + "\n"
            )
            wrong = i % 5 == 4
            answers[str(i)] = (f"import time\ntime.sleep({pause!r})\n" if pause else "") + (
                BAD if wrong else GOOD
            ).format(k=k)
            right[f"codecontests/{i}"] = not wrong
    (folder / "answers.json").write_text(json.dumps(answers), encoding="utf-8")
    model = folder / "model.py"
    model.write_text(MODEL, encoding="utf-8")
    return folder / "problems.jsonl", model, right


# ------------------------------------------------------------ a local cluster
def free_ports(count: int, taken: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """``count`` distinct ports free on 127.0.0.1 now, none of them in ``taken``.
    All are held bound together: the kernel hands a port just closed out again,
    so asking one at a time can give one port twice (Ray then refuses to start)."""
    held: list[socket.socket] = []
    ports: list[int] = []
    try:
        while len(ports) < count:
            s = socket.socket()
            held.append(s)
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
            if port not in taken:
                ports.append(port)
    finally:
        for s in held:
            s.close()
    return ports


class LocalCluster:
    """A head and worker nodes on this machine, on ports and a temp dir of their
    own; :meth:`stop` ends exactly the processes they started, by PID."""

    #: How often a node is started again, on fresh ports, when ``ray start`` fails:
    #: a port free when chosen can be taken by another program before Ray binds it.
    ATTEMPTS = 3

    def __init__(self, ray_bin: Path, workers: int = 1, tag: str = "qflow") -> None:
        self.ray = str(ray_bin)
        self.tag = f"{tag}-{os.getpid()}-{random.randrange(1 << 30):x}"
        self.temp = Path(tempfile.gettempdir()) / f"ray-{self.tag}"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        self.env.update(RAY_USAGE_STATS_ENABLED="0")
        self.workers: list[str] = []
        self._handed: set[int] = set()  # every port given to a node of this cluster
        self._client_port: int | None = None
        """The head's Ray client server's port: that server's command line names
        neither the temp dir nor a node, and it outlives the ``ray start`` that
        started it (an orphan): its port, which this cluster chose, is its mark."""
        self.port = self._ports(1)[0]
        self.address = f"127.0.0.1:{self.port}"
        self._start(head=True, name=f"{self.tag}-head")
        for i in range(workers):
            self.add_worker(f"{self.tag}-w{i}")

    def _ports(self, count: int) -> list[int]:
        ports = free_ports(count, self._handed)
        self._handed.update(ports)
        return ports

    def _command(self, head: bool, name: str) -> list[str]:
        node, objects, metrics, agent, agent_grpc, runtime_env = self._ports(6)
        common = [
            "--num-cpus", "1", "--object-store-memory", "100000000", "--node-name", name,
            "--node-manager-port", str(node), "--object-manager-port", str(objects),
            "--metrics-export-port", str(metrics), "--dashboard-agent-listen-port", str(agent),
            "--dashboard-agent-grpc-port", str(agent_grpc), "--runtime-env-agent-port", str(runtime_env),
            "--disable-usage-stats",
        ]  # fmt: skip
        if not head:
            return [self.ray, "start", "--address", self.address, *common]
        dashboard, client = self._ports(2)
        self._client_port = client
        return [
            self.ray, "start", "--head", "--port", str(self.port), "--include-dashboard", "false",
            "--dashboard-port", str(dashboard),
            "--ray-client-server-port", str(client), "--temp-dir", str(self.temp), *common,
        ]  # fmt: skip

    def _start(self, head: bool, name: str) -> None:
        """Start one node; on failure end what that attempt started (a worker's
        failure leaves the head and the other workers running) and try again on
        fresh ports, up to :attr:`ATTEMPTS` times."""
        for attempt in range(1, self.ATTEMPTS + 1):
            before = set(self.pids())
            if head and attempt > 1:
                self.port = self._ports(1)[0]
                self.address = f"127.0.0.1:{self.port}"
            done = subprocess.run(self._command(head, name), env=self.env, capture_output=True, text=True, timeout=300)
            if done.returncode == 0:
                return
            started = set(self.pids()) - before
            _end(started | {c for p in started for c in _children(p)})
            if attempt == self.ATTEMPTS:
                if head:
                    self.stop()
                raise RuntimeError(f"ray start failed {attempt} times; the last: {done.stderr[-2000:]}")

    def add_worker(self, name: str) -> str:
        self._start(head=False, name=name)
        self.workers.append(name)
        return name

    def pids(self, needle: str | None = None) -> list[int]:
        """PIDs of this cluster's processes (their command lines name its temp
        dir or one of its node names, or it is the head's client server on the
        port this cluster gave it); only those whose line holds ``needle`` if given."""
        marks = [str(self.temp), f"{self.tag}-"]
        client = f"--port={self._client_port}" if self._client_port is not None else None
        out = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            words = _words(int(entry.name))
            line = " ".join(words)
            ours = any(m in line for m in marks) or (client in words and "ray.util.client.server" in words)
            if ours and (needle is None or needle in line):
                out.append(int(entry.name))
        return out

    def raylet_pid(self, name: str) -> int:
        found = [p for p in self.pids(f"--node-name={name}") if "raylet" in _cmd(p)]
        if not found:
            raise RuntimeError(f"no raylet for {name}")
        return found[0]

    def stop(self) -> None:
        """End this cluster's processes (and their children), by PID."""
        pids = set(self.pids())
        _end(pids | {c for p in list(pids) for c in _children(p)})
        shutil.rmtree(self.temp, ignore_errors=True)


def _end(pids: set[int]) -> None:
    """SIGTERM, then SIGKILL, exactly these processes; wait up to 10 s for each signal to take."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(p) for p in pids):
            time.sleep(0.1)


def _words(pid: int) -> list[str]:
    """``pid``'s command line, word by word (none once it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")
    except OSError:
        return []


def _cmd(pid: int) -> str:
    return " ".join(_words(pid))


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid:
                out.add(int(entry.name))
                out |= _children(int(entry.name))
    return out


# ------------------------------------------------------------------ the bench
def run_bench(data: Path, model: Path, out: Path, env: dict[str, str], *extra: str) -> tuple[float, float, str]:
    """(wall seconds, the driver's CPU seconds, stderr) of one ``qflow bench``."""
    cmd = [
        *QFLOW, "bench", "--dataset", "codecontests", "--dataset-file", str(data), "--model", f"script/{model}",
        "--workflow", "zeroshot", "--out", str(out), "--concurrency", "8", *extra,
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"qflow bench failed ({done.returncode}): {done.stderr[-3000:]}")
    # The driver's own CPU: qflow's process and its children here (locally that includes the sandbox).
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stderr


def results(out: Path) -> dict[str, dict]:
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines() if x.strip()]
    return {r["id"]: r for r in lines}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problems", type=int, default=40)
    ap.add_argument("--tests", type=int, default=200)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.problems, args.tests = 6, 40
    ray_bin = Path(sys.executable).parent / "ray"
    if not ray_bin.exists():
        raise SystemExit("needs the ray extra: pip install -e '.[ray]'")
    work = Path(tempfile.mkdtemp(prefix="qflow-cluster-bench-"))
    data, model, right = write_problems(work / "data", args.problems, args.tests)
    env = dict(os.environ, QFLOW_CLUSTER_ANSWERS=str(work / "data" / "answers.json"), RAY_USAGE_STATS_ENABLED="0")
    env.pop("QFLOW_CLUSTER", None)
    print(f"{args.problems} problems x {args.tests} stdin/stdout tests, zeroshot with a script model")
    load_before = f"{os.getloadavg()[0]:.1f}"
    local_wall, local_cpu, _ = run_bench(data, model, work / "local", env)
    cluster = LocalCluster(ray_bin, workers=1, tag="qflow-bench")
    try:
        wall, cpu, err = run_bench(data, model, work / "cluster", env, "--cluster", cluster.address)
        task = per_task_overhead(cluster.address)
    finally:
        cluster.stop()
    here, there = results(work / "local"), results(work / "cluster")
    same = all(here[k]["passed"] == there[k]["passed"] == right[k] for k in right)
    per_node: dict[str, int] = {}
    for r in there.values():
        per_node[r.get("node", "?")] = per_node.get(r.get("node", "?"), 0) + 1
    tests = args.problems * args.tests
    for line in err.splitlines():
        if "cluster" in line:
            print(line)
    print(f"local bench:   {local_wall:7.2f} s wall")
    print(f"cluster bench: {wall:7.2f} s wall (head + 1 worker node on this machine)")
    print(f"overhead ratio cluster/local: {wall / local_wall:.3f}x (target <= 1.15x)")
    for node, count in sorted(per_node.items()):
        print(f"  node {node}: {count} problems, {count / wall:.3f} problems/s")
    print(f"wall per test: local {1000 * local_wall / tests:.1f} ms, cluster {1000 * wall / tests:.1f} ms")
    for node, count in sorted(per_node.items()):
        print(f"  node {node}: {1000 * wall / (count * args.tests):.1f} ms a test (its wall / the tests it judged)")
    print(f"load average before / after: {load_before} / {os.getloadavg()[0]:.1f}")
    print(f"per-task overhead on the cluster (a 1-test program, as a task minus here): {1000 * task:.1f} ms")
    print(f"driver CPU per finished problem on the cluster path: {1000 * cpu / args.problems:.1f} ms")
    print(f"local CPU per finished problem (driver + its sandbox): {1000 * local_cpu / args.problems:.1f} ms")
    print(f"verdicts the same problem by problem (and as written): {same}")
    shutil.rmtree(work, ignore_errors=True)


def per_task_overhead(address: str, rounds: int = 20) -> float:
    """Seconds a one-test judging costs as a Ray task beyond the same judging here (median)."""
    import asyncio

    import ray

    from qflow_tui.core.bench.cluster import judge_on_node
    from qflow_tui.core.bench.datasets import load_dataset

    tmp = Path(tempfile.mkdtemp(prefix="qflow-task-"))
    data, _, _ = write_problems(tmp, 1, 1)
    bp = load_dataset("codecontests", path=data)[0]
    program = GOOD.format(k=1)
    from qflow_tui.core.bench.evaluate import Evaluator

    ev = Evaluator()
    asyncio.run(ev.evaluate(bp, program))
    here = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        asyncio.run(ev.evaluate(bp, program))
        here.append(time.perf_counter() - t0)
    ray.init(address=address, logging_level="ERROR", log_to_driver=False)
    task = ray.remote(num_cpus=1, max_retries=0)(judge_on_node)
    setup = ("completion", False, True)
    ray.get([task.remote("evaluate", bp, program, None, setup) for _ in range(4)])  # warm both nodes
    there = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        ray.get(task.remote("evaluate", bp, program, None, setup))
        there.append(time.perf_counter() - t0)
    ray.shutdown()
    shutil.rmtree(tmp, ignore_errors=True)
    return sorted(there)[rounds // 2] - sorted(here)[rounds // 2]


if __name__ == "__main__":
    main()
