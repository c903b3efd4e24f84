"""A bench judged on a Ray cluster (``qflow bench --cluster``; docs/cluster.md).

The unit spread over the cluster is one program's judging on a problem's hidden
tests: the workflow (and every model call, with its API keys) stays on the
driver, which stays the only writer of the bench folder; each node judges with
its own sandbox, at its own isolation level, checked before the first problem.
A task lost with its node is submitted again elsewhere and counted; Ctrl+C
cancels the tasks in flight. Ray is imported only here, and only when a bench
asks for a cluster.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import sys
import threading
import time
import tomllib
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Required, TypedDict

from ... import __version__
from ...locations import config_file, ground_truth_dir
from ..config_file import ConfigError, read_config_text
from ..safe_text import one_line
from ..sandbox import SandboxReport, SandboxUnavailable, detect_isolation, pool
from .datasets import BenchProblem
from .evaluate import Evaluator, Verdict

if TYPE_CHECKING:
    from .bench_runner import BenchSpec

#: The environment variable that names the cluster when ``--cluster`` is not given.
CLUSTER_ENV = "QFLOW_CLUSTER"
#: Where a bench folder keeps the nodes it was judged on (the driver writes it).
CLUSTER_FILE = "cluster.json"
#: Seconds a node has to answer the probe before the bench refuses to start.
PROBE_TIMEOUT = 120.0
#: Times one judging task is submitted again after its node was lost.
MAX_RESUBMITS = 8
#: The words that turn a configured cluster off for one run (``--cluster off``).
OFF = ("", "off", "none", "local")


class ClusterError(Exception):
    """The cluster cannot judge this bench; the message is one line a user can act on."""


def _ray() -> types.ModuleType:
    """Ray, imported at its first use: it is an optional extra
    (``qflow-tui[ray]``) that takes seconds to import, and only a bench judged
    on a cluster needs it (a bench without ``--cluster`` never imports it).
    ImportError where it is not installed: :func:`connect` says so in one line.
    ``ray.exceptions`` and ``ray._private.worker`` come with ``import ray``
    (``ray.init`` and ``ray.get`` live there); the scheduling strategies are
    imported here so that they are an attribute too."""
    import ray
    import ray.util.scheduling_strategies

    module: types.ModuleType = ray  # typed alike where Ray is installed and where it is not (Any)
    return module


def cluster_address(flag: str | None) -> str | None:
    """The cluster a bench runs on: ``--cluster``, else :data:`CLUSTER_ENV`, else
    the config file's ``[bench] cluster``; None (judged here) when none is set or
    the one set is ``off``."""
    value = flag if flag is not None else os.environ.get(CLUSTER_ENV)
    if value is None:
        path = config_file()
        try:
            text = read_config_text(path)
            data = tomllib.loads(text) if text else {}
        except (ConfigError, tomllib.TOMLDecodeError) as exc:
            raise ClusterError(one_line(str(exc), 300)) from None
        bench = data.get("bench", {})
        if not isinstance(bench, dict):
            raise ClusterError(f'{path}: bench must be a table, e.g. [bench] then cluster = "auto"')
        raw = bench.get("cluster")
        if raw is not None and not isinstance(raw, str):
            raise ClusterError(f"{path}: [bench] cluster must be a string: HOST:PORT, auto or ray://HOST:PORT")
        value = raw
    value = (value or "").strip()
    return None if value.lower() in OFF else value


# ---------------------------------------------------------------- node facts
class NodeFacts(TypedDict, total=False):
    """What a node judges with (:func:`node_facts`), as its probe sends it back."""

    host: str
    node_id: str
    """Ray's id of the node (set by the probe)."""
    qflow: str
    python: str
    ray: str | None
    error: str
    """Why no sandbox can start there."""
    missing: str
    """Why qflow cannot be imported there (the probe ran without it)."""
    level: str
    label: str
    protects: dict[str, bool]
    interpreter: str
    numpy: str | None
    bwrap: str | None


def node_facts() -> NodeFacts:
    """What this process's node judges with, as ``qflow doctor`` reads it: its
    sandbox level and what that level protects against, the interpreter and
    numpy a judged program sees, bubblewrap, and the qflow and Ray versions."""
    facts: NodeFacts = {"host": socket.gethostname(), "qflow": __version__, "python": sys.version.split()[0]}
    try:
        facts["ray"] = _ray().__version__
    except ImportError:
        facts["ray"] = None
    try:
        iso = detect_isolation()
    except SandboxUnavailable as exc:
        facts["error"] = f"no sandbox can start: {one_line(str(exc), 200)}"
        return facts
    facts.update(
        {
            "level": iso.label.split(" (", 1)[0],
            "label": iso.label,
            "protects": iso.protects(),
            "interpreter": iso.interpreter,
            "numpy": dict(iso.package_versions).get("numpy"),
            "bwrap": iso.bwrap,
        }
    )
    return facts


def _probe() -> NodeFacts:
    """Run on a node: its facts, or why qflow cannot run there. Sent by value
    (see :func:`_probe_task`), so it reaches a node without qflow: it sees no
    global of this module, and imports all it uses itself."""
    import socket as _socket

    try:
        import ray

        node = ray.get_runtime_context().get_node_id() if ray.is_initialized() else ""
    except Exception:  # no Ray here: said by the versions' check
        node = ""
    try:
        from qflow_tui.core.bench.cluster import node_facts as facts
    except ImportError as exc:
        return {"host": _socket.gethostname(), "node_id": node, "missing": str(exc)}
    out = facts()
    out["node_id"] = node
    return out


def node_name(facts: NodeFacts) -> str:
    """A node's stable, readable id: its host name and Ray node id's first 8 characters."""
    return f"{facts.get('host', '?')}:{str(facts.get('node_id', ''))[:8]}"


def check_nodes(driver: NodeFacts, nodes: list[NodeFacts], mixed: bool) -> list[str]:
    """Refuse, in one line naming it, the first node that cannot judge this bench
    as the driver would (no qflow, another qflow or Ray version, no bubblewrap, a
    weaker sandbox level, no numpy where the driver has it); with ``mixed`` the
    last three are allowed and returned as warnings, one line each."""
    warnings: list[str] = []
    how = "install it there and run `ray start` again"
    for n in nodes:
        name = node_name(n)
        if "missing" in n:
            raise ClusterError(
                f"node {name} has no qflow installed ({one_line(n['missing'], 120)}): "
                f"pip install 'qflow-tui[ray]=={__version__}' there and run `ray start` again"
            )
        for what in ("qflow", "ray"):
            if n.get(what) != driver.get(what):
                raise ClusterError(
                    f"node {name} runs {what} {n.get(what)}, this driver {driver.get(what)}: "
                    f"every node needs the same {what} version; {how}"
                )
        if "error" in n:
            raise ClusterError(f"node {name} cannot judge: {n['error']}")
        weaker: list[str] = []
        if not n.get("bwrap"):
            weaker.append(
                f"node {name} has no bubblewrap (it judges at {n.get('level')}): apt-get install bubblewrap there"
            )
        lost = [k for k, v in dict(driver.get("protects") or {}).items() if v and not dict(n["protects"]).get(k)]
        if lost:
            weaker.append(
                f"node {name} judges at {n.get('level')}, weaker than this driver's {driver.get('level')} "
                f"(it does not stop: {', '.join(lost[:3])}{', ...' if len(lost) > 3 else ''})"
            )
        if driver.get("numpy") and not n.get("numpy"):
            weaker.append(f"node {name} has no numpy for judged programs (this driver has {driver['numpy']})")
        if weaker and not mixed:
            raise ClusterError(f"{weaker[0]}; or pass --cluster-mixed to judge there anyway")
        warnings += weaker
    return warnings


# ------------------------------------------------------------------ on a node
_local = threading.local()


def _node_evaluator(convention: str, truth: bool, warm: bool) -> Evaluator:
    """The node's own evaluator for this bench's convention (kept per worker process)."""
    if pool.enabled() != warm:
        pool.set_enabled(warm)
    key = (convention, truth)
    cache: dict[tuple[str, bool], Evaluator] = getattr(_local, "evaluators", None) or {}
    _local.evaluators = cache
    if key not in cache:
        cache[key] = Evaluator(convention=convention, truth_dir=ground_truth_dir() if truth else None)
    return cache[key]


def judge_on_node(
    kind: str, bp: BenchProblem, program: str, tests: list[str] | None, setup: tuple[str, bool, bool]
) -> tuple[Verdict | SandboxReport, str, float]:
    """A Ray task's body: judge ``program`` on this node; (the verdict or the
    tests' report, this node's name, seconds it took)."""
    ray = _ray()
    started = time.monotonic()
    evaluator = _node_evaluator(*setup)
    if kind == "evaluate":
        result: Verdict | SandboxReport = asyncio.run(evaluator.evaluate(bp, program))
    else:
        result = asyncio.run(evaluator.run_tests(bp, program, list(tests or [])))
    name = node_name({"host": socket.gethostname(), "node_id": ray.get_runtime_context().get_node_id()})
    return result, name, time.monotonic() - started


# ------------------------------------------------------------------ the driver
@dataclass
class Cluster:
    """A connected cluster: its nodes as probed, and what the bench did there."""

    address: str
    driver: NodeFacts
    nodes: list[NodeFacts]
    warnings: list[str] = field(default_factory=list)
    redone: int = 0
    """Judging tasks submitted again because their node was lost."""
    redone_seconds: float = 0.0
    """Seconds those tasks had been in flight (submitted, queued or running) when their node was lost."""
    lost: list[str] = field(default_factory=list)
    """Nodes seen lost, by name."""

    def describe(self) -> str:
        """The nodes and their levels, one line."""
        levels: dict[str, int] = {}
        for n in self.nodes:
            levels[str(n.get("level"))] = levels.get(str(n.get("level")), 0) + 1
        at = ", ".join(f"{count} at {level}" for level, count in levels.items())
        return f"{len(self.nodes)} node{'s' if len(self.nodes) != 1 else ''} ({at})"

    def summary(self) -> str | None:
        """The line about lost nodes and redone work; None when none was lost."""
        if not self.redone and not self.lost:
            return None
        who = ", ".join(self.lost) if self.lost else "a node"
        if not self.redone:
            return f"cluster: {who} was lost while idle; no judging was in flight there, nothing was redone or lost"
        return (
            f"cluster: {who} was lost; {self.redone} judging task{'s' if self.redone != 1 else ''} "
            f"(in flight for {self.redone_seconds:.1f} s in all) ran again on other nodes, nothing was lost"
        )

    def record(self, folder: Path) -> None:
        """Write the nodes and levels (and any loss) into the bench folder's cluster file."""
        data = {
            "address": self.address,
            "driver": {k: self.driver.get(k) for k in ("host", "level", "numpy", "qflow", "ray")},
            "nodes": [{"node": node_name(n), "level": n.get("level"), "numpy": n.get("numpy")} for n in self.nodes],
            "lost": self.lost,
            "redone": self.redone,
        }
        tmp = folder / (CLUSTER_FILE + ".tmp")
        tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        tmp.replace(folder / CLUSTER_FILE)


def _reachable(address: str) -> None:
    """A HOST:PORT (or ray://HOST:PORT) that refuses a TCP connection is refused here,
    at once, rather than after Ray's own minute of retrying."""
    if address == "auto":
        return
    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ClusterError(
            f"--cluster {one_line(address, 80)}: give HOST:PORT (the head's `ray start --head --port`), "
            "auto, or ray://HOST:PORT"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=5):
            pass
    except OSError as exc:
        raise ClusterError(
            f"cannot reach the Ray cluster at {one_line(address, 80)} ({exc.strerror or exc}): "
            "start it with `ray start --head --port PORT` there, or check the address"
        ) from None


def connect(address: str, mixed: bool = False) -> Cluster:
    """Join the cluster at ``address`` and probe every node; ClusterError (one
    line) when the cluster is unreachable or a node cannot judge this bench."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        ray = _ray()
    except ImportError:
        raise ClusterError("--cluster needs Ray: pip install 'qflow-tui[ray]'") from None
    _reachable(address)
    try:
        ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
    except Exception as exc:  # Ray's own errors: version mismatch, no cluster at auto
        words = one_line(str(exc), 200)
        if "version" in words.lower():
            raise ClusterError(
                f"the cluster at {address} runs another Ray or Python ({words}): "
                "install the same versions as here on every node"
            ) from None
        raise ClusterError(f"cannot join the Ray cluster at {one_line(address, 80)}: {words}") from None
    _quiet_ray()
    driver = node_facts()
    try:
        gone: list[str] = []
        nodes = probe_nodes(gone)
        warnings = check_nodes(driver, nodes, mixed)
        warnings += [
            f"node {name} is gone (Ray still listed it, as it does for a while after a node dies): "
            "judging on the others"
            for name in gone
        ]
    except ClusterError:
        ray.shutdown()
        raise
    return Cluster(address, driver, nodes, warnings)


def _quiet_ray() -> None:
    """Ray's driver prints the cluster's error messages (a node's raylet died, with
    its statistics) on stdout, amid the report: they go to the ``qflow.cluster``
    log instead, and qflow says what happened in its own line."""
    worker = _ray()._private.worker
    log = logging.getLogger("qflow.cluster")

    def to_log(data: Mapping[str, object], ignore_prefix: bool) -> None:
        lines = data.get("lines")
        for line in lines if isinstance(lines, list) else []:
            log.info("ray: %s", line)

    worker.print_to_stdstream = to_log


class RayNode(TypedDict, total=False):
    """The fields qflow reads of a node as ``ray.nodes()`` lists it."""

    NodeID: Required[str]
    Alive: bool
    Resources: dict[str, float]
    NodeManagerHostname: str
    NodeManagerAddress: str


def _alive_nodes() -> list[RayNode]:
    nodes: list[RayNode] = _ray().nodes()  # type: ignore[no-untyped-call,unused-ignore]
    return [n for n in nodes if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]


def _gone(exc: BaseException) -> bool:
    """Whether a task pinned to a node failed because the node no longer exists
    (Ray lists a dead node as alive for a while after its raylet died)."""
    return type(exc).__name__ == "TaskUnschedulableError"


def probe_nodes(gone: list[str] | None = None) -> list[NodeFacts]:
    """Every live node's facts (:func:`node_facts`), read by a task pinned to it.
    A node Ray still lists but that no longer exists is left out and named in
    ``gone``; if no node is left, one line."""
    ray = _ray()
    pinned = ray.util.scheduling_strategies.NodeAffinitySchedulingStrategy
    alive = _alive_nodes()
    if not alive:
        raise ClusterError("the Ray cluster has no node with a CPU to judge on: start one with `ray start`")
    probe = ray.remote(num_cpus=0, max_retries=0)(_probe_task())
    refs = [probe.options(scheduling_strategy=pinned(n["NodeID"], soft=False)).remote() for n in alive]
    out = []
    for n, ref in zip(alive, refs, strict=True):
        try:
            out.append(ray.get(ref, timeout=PROBE_TIMEOUT))
        except Exception as exc:
            host = n.get("NodeManagerHostname") or n.get("NodeManagerAddress") or "?"
            if _gone(exc) and gone is not None:
                gone.append(f"{host}:{n['NodeID'][:8]}")
                continue
            raise ClusterError(
                f"node {host}:{n['NodeID'][:8]} did not answer qflow's probe "
                f"({type(exc).__name__}: {one_line(str(exc), 160)}); is qflow installed there?"
            ) from None
    if not out:
        raise ClusterError("no node of the Ray cluster answered qflow's probe: start one with `ray start`")
    return out


def _still_there(node_ids: list[str]) -> set[str]:
    """Of ``node_ids``, those a zero-CPU task pinned to each reaches within a
    few seconds: Ray lists a node whose raylet died as alive for a while, but a
    task pinned to it fails at once as unschedulable."""
    ray = _ray()
    pinned = ray.util.scheduling_strategies.NodeAffinitySchedulingStrategy
    ping = ray.remote(num_cpus=0, max_retries=0)(lambda: True)
    refs = {node: ping.options(scheduling_strategy=pinned(node, soft=False)).remote() for node in node_ids}
    there = set()
    for node, ref in refs.items():
        try:
            ray.get(ref, timeout=PROBE_TIMEOUT)
            there.add(node)
        except Exception as exc:
            if not _gone(exc):
                there.add(node)  # slow or busy is not gone
    return there


def _probe_task() -> Callable[[], NodeFacts]:
    """:func:`_probe` as a function of no module, so Ray sends it by value: a
    node without qflow runs it and says so, instead of failing to load it."""
    return types.FunctionType(_probe.__code__, {"__builtins__": __builtins__}, "qflow_probe")


class ClusterEvaluator(Evaluator):
    """An evaluator whose judging runs on the cluster's nodes: each program one
    Ray task, submitted again when its node is lost; the verdicts are the
    nodes' own evaluators' (the same code, the same rules)."""

    def __init__(
        self,
        cluster: Cluster,
        *,
        convention: str,
        truth: bool,
        warm: bool,
        folder: Path | None = None,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(convention=convention)
        self.cluster = cluster
        self.folder = folder
        """The bench folder, where the nodes are recorded (:data:`CLUSTER_FILE`)."""
        self._recorded = False
        self.setup = (convention, truth, warm)
        self.notice = notice
        """Called with a line for the bench's progress (a node lost)."""
        self._where: dict[tuple[str, str], str] = {}
        self._inflight: set[Any] = set()
        self._known_alive = {n["node_id"] for n in cluster.nodes}
        self._task = _ray().remote(num_cpus=1, max_retries=0)(judge_on_node)

    async def evaluate(self, bp: BenchProblem, program: str) -> Verdict:
        if not program.strip():
            return await super().evaluate(bp, program)
        result = await self._submit("evaluate", bp, program, None)
        assert isinstance(result, Verdict)
        return result

    async def run_tests(self, bp: BenchProblem, program: str, tests: list[str]) -> SandboxReport:
        result = await self._submit("tests", bp, program, tests)
        assert isinstance(result, SandboxReport)
        return result

    def placement(self, bp: BenchProblem, program: str) -> dict[str, str]:
        """The results line's ``node``: the node that judged the problem's final program."""
        node = self._where.get((bp.id, program))
        return {"node": node} if node else {}

    async def _submit(self, kind: str, bp: BenchProblem, program: str, tests: list[str] | None) -> object:
        ray = _ray()
        if not self._recorded:
            self._record()
        for attempt in range(MAX_RESUBMITS + 1):
            started = time.monotonic()
            ref = self._task.options(scheduling_strategy="SPREAD").remote(kind, bp, program, tests, self.setup)
            self._inflight.add(ref)
            try:
                result, node, _seconds = await ref
            except asyncio.CancelledError:
                ray.cancel(ref, force=True)  # Ctrl+C: nothing keeps judging for this bench
                raise
            except ray.exceptions.RayTaskError:
                raise  # the judging itself failed: the bench records it and redoes it on resume
            except ray.exceptions.RayError as exc:
                if attempt == MAX_RESUBMITS:
                    raise RuntimeError(f"judging was lost {attempt + 1} times: {one_line(str(exc), 160)}") from None
                self.cluster.redone += 1
                self.cluster.redone_seconds += time.monotonic() - started
                self._note_lost()
                self._record()
                continue
            finally:
                self._inflight.discard(ref)
            self._where[(bp.id, program)] = node
            return result
        raise AssertionError("unreachable")  # pragma: no cover

    def _note_lost(self, ping: bool = False) -> None:
        """Name the nodes Ray no longer counts alive, once each, as a notice;
        ``ping``: ask each node Ray still lists, too (at the end of a bench, so
        a node that died while idle is named though Ray has not noticed yet)."""
        try:
            alive = {n["NodeID"] for n in _alive_nodes()}
            if ping:
                alive = _still_there([n for n in alive if n in self._known_alive])
        except Exception:
            return
        for n in self.cluster.nodes:
            name = node_name(n)
            if n["node_id"] in self._known_alive and n["node_id"] not in alive and name not in self.cluster.lost:
                self._known_alive.discard(n["node_id"])
                self.cluster.lost.append(name)
                if self.notice:
                    self.notice(f"cluster: node {name} was lost; its judging in flight runs again on other nodes")

    def _record(self) -> None:
        if self.folder is not None and self.folder.is_dir():
            try:
                self.cluster.record(self.folder)
                self._recorded = True
            except OSError:
                pass  # the report then says nothing of the cluster; the results lines still name their nodes

    def finish(self) -> str | None:
        """End this bench's work on the cluster: name any node lost, record the
        nodes in the folder, cancel what still runs, leave; the line about lost
        nodes and redone work, if any."""
        try:
            self._note_lost(ping=True)  # a node lost while idle is said too
            self.wait_for_loss()
            self._record()
        finally:
            self.close()
        return self.cluster.summary()

    def wait_for_loss(self, timeout: float = 60.0) -> None:
        """After work was redone, wait (at most ``timeout`` s) until Ray says which node was lost."""
        deadline = time.monotonic() + timeout
        while self.cluster.redone and not self.cluster.lost and time.monotonic() < deadline:
            self._note_lost()
            if not self.cluster.lost:
                time.sleep(0.5)

    def close(self) -> None:
        """Cancel whatever is still judging for this bench, and leave the cluster."""
        ray = _ray()
        for ref in list(self._inflight):
            try:
                ray.cancel(ref, force=True)
            except Exception:
                pass
        ray.shutdown()


def judge_on_cluster(
    spec: BenchSpec, folder: Path, address: str, mixed: bool, notice: Callable[[str], None] | None = None
) -> ClusterEvaluator:
    """Join the cluster at ``address``, check its nodes, and return the evaluator
    that judges ``spec``'s programs there (ClusterError: one line)."""
    cluster = connect(address, mixed)
    config = spec.config
    return ClusterEvaluator(
        cluster,
        convention=spec.convention,
        truth=bool(config.truth_cache),
        warm=bool(config.sandbox_warm),
        folder=Path(folder),
        notice=notice,
    )


# ------------------------------------------------------------------ the report
def cluster_lines(folder: Path, records: Sequence[Mapping[str, object]]) -> list[str]:
    """What a report says of the cluster a bench was judged on (plain text, one
    line each): the nodes and their levels, how many runs each judged, and any
    node lost. Nothing for a bench judged on one machine."""
    try:
        data = json.loads((folder / CLUSTER_FILE).read_text(encoding="utf-8")[: 1024 * 1024])
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list):
        return []
    nodes = [n for n in data["nodes"] if isinstance(n, dict)]
    levels: dict[str, int] = {}
    for n in nodes:
        levels[str(n.get("level"))] = levels.get(str(n.get("level")), 0) + 1
    at = ", ".join(f"{count} at {level}" for level, count in levels.items())
    ran: dict[str, int] = {}
    for r in records:
        node = r.get("node")
        if r.get("status") == "done" and isinstance(node, str):
            ran[node] = ran.get(node, 0) + 1
    line = f"Judged on a Ray cluster of {len(nodes)} node{'s' if len(nodes) != 1 else ''} ({at})"
    if ran:
        line += "; runs per node: " + ", ".join(f"{name} {count}" for name, count in sorted(ran.items()))
    out = [line + "."]
    lost: list[object] = data["lost"] if isinstance(data.get("lost"), list) else []
    redone = data["redone"] if isinstance(data.get("redone"), int) else 0
    if lost or redone:
        who = ", ".join(str(x) for x in lost) or "a node"
        out.append(f"Lost during the bench: {who}; {redone} judging tasks ran again on other nodes.")
    return out
