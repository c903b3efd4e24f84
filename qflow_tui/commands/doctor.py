"""``qflow doctor``: what the sandbox can isolate with on this machine (each
layer and what it found), which interpreter and packages a judged program
sees, the memory and disk bounds in force (cgroup,
RLIMIT_AS, open files, memory files, the disk cap's mechanism), what the
level protects against, each claim checked
by a probe that really tries the attack in the sandbox, the warm sandbox
children a run keeps (whether on, how many, their memory), the workflow,
provider and dataset plugins installed (those refused, with why, and what they printed while
loading; the dataset plugins' paper files that were not read, with why), and which
API-key variables are set (names only, never values). A
level at which a judged program could signal every process (``rlimits``) is
said in red, with whether a run as root would refuse it. Exits 1 when a probe
gets past a protection the level claims."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any, TextIO

from ..core.safe_text import one_line
from . import Subparsers, fail

if TYPE_CHECKING:
    from ..core.plugins import Registry

#: Variables the app reads; only whether they are set is printed.
KEY_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser(
        "doctor", help="show the sandbox isolation level and which API keys are set", description=__doc__
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-probes", action="store_true", help="only report the level; do not try the attacks (about 4 s)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The report. As text it is printed as it is found, a line at a time
    (the probes and the warm children take seconds on a busy machine); with
    ``--json``, one object at the end."""
    from ..core.sandbox import (
        Sandbox,
        SandboxConfig,
        SandboxUnavailable,
        detect_isolation,
        weak_refusal,
        weak_warning,
    )
    from ..core.sandbox.config import CGROUP_SLACK_MB
    from ..core.sandbox.probes import ProbeResult, probe_all

    as_text = not getattr(args, "json", False)
    probing = not getattr(args, "no_probes", False)

    def say(line: str) -> None:
        if as_text:
            print(line, flush=True)  # flushed: a pipe sees each line as it comes too

    keys = {name: bool(os.environ.get(name)) for name in KEY_VARS}
    try:
        iso = detect_isolation()
        # Reported even where a run would refuse it (a weak level as root): that is what the red line says.
        sandbox = Sandbox(SandboxConfig(timeout=3.0), refuse_weak=False)
    except (SandboxUnavailable, ValueError) as exc:
        return fail(f"sandbox unavailable: {exc}", code=3)
    warnings = [w for w in (weak_warning(iso), weak_refusal(iso)) if w]
    layers = {
        "bwrap": iso.found.get("bwrap"),
        "seccomp": iso.found.get("seccomp"),
        "landlock": iso.found.get("landlock"),
        "uid": iso.found.get("uid", "not root: runs as your own uid" if os.geteuid() != 0 else "not used"),
        "interpreter": iso.found.get("interpreter"),
    }
    say(f"sandbox isolation: {iso.label}")
    for warning in warnings if as_text else ():
        red(f"  {warning}")
    for name, found in layers.items():
        say(f"  {name:<12} {found}")
    say(f"judged programs run on {one_line(iso.judged_programs(), 300)}")
    say("memory and disk bounds:")
    for name, bound in sandbox.bounds().items():
        say(f"  {name:<14} {one_line(bound, 160)}")
    claims = sandbox.protects()
    say("protects against:" + ("" if probing else " (not probed)"))

    def said(p: ProbeResult) -> None:
        how = "stopped" if p.held else "GOT THROUGH"
        say(f"  [{'x' if p.claimed else ' '}] {p.threat}  probe: {how} ({one_line(p.detail, PROBE_DETAIL)})")

    try:
        probes = probe_all(sandbox, on_result=said) if probing else []
    except (SandboxUnavailable, ValueError) as exc:
        return fail(f"sandbox unavailable: {exc}", code=3)
    tried = {p.threat for p in probes}
    for threat, ok in claims.items():
        if threat not in tried:
            say(f"  [{'x' if ok else ' '}] {threat}")
    broken = [p for p in probes if p.claimed and not p.held]
    m = sandbox.memory
    if m.cgroup:
        each = f"{m.per_process_mb} MB" + (f" + {m.disk_per_run_mb // 2} MB of tmpfs" if m.disk_per_run_mb else "")
        how = f"{2 * m.runs} children at once, each held by its cgroup to {each} + {CGROUP_SLACK_MB} MB"
    else:
        how = f"{m.runs} runs at once x {m.processes_per_run} processes x {m.per_process_mb} MB" + (
            f" + {m.disk_per_run_mb} MB of tmpfs per run" if m.disk_per_run_mb else ""
        )
    say(f"memory: at most {m.total_mb} MB for all sandbox processes of {m.machine_mb} MB ({how})")
    warm, config_note, truth_on = warm_pool_report()
    truth = ground_truth_report(truth_on, claims["reading/deleting your files"])
    notes = list(iso.notes) + ([config_note] if config_note else [])
    plugins = plugin_report()
    if as_text:
        out = sys.stdout
        print_warm_pool(warm, out)
        print_ground_truth(truth, out)
        for note in notes:
            print(f"  note: {one_line(note, 300)}", file=out)
        print_plugins(plugins, out)
        print("API keys (names only):", file=out)
        for name, present in keys.items():
            print(f"  {name:<20} {'set' if present else 'not set'}", file=out)
        if broken:
            print(f"warning: {len(broken)} claimed protection(s) did not hold: see GOT THROUGH above", file=out)
        return 1 if broken else 0
    judged = {
        "interpreter": iso.interpreter,
        "packages": dict(iso.package_versions),
        "package_dirs": list(iso.packages),
        "summary": iso.judged_programs(),
    }
    data = {
        "isolation": iso.label,
        "layers": layers,
        "judged_programs": judged,
        "protects": claims,
        "bounds": sandbox.bounds(),
        "probes": {p.threat: {"claimed": p.claimed, "held": p.held, "detail": p.detail} for p in probes},
        "memory": {
            "bound_mb": sandbox.memory.total_mb,
            "machine_mb": sandbox.memory.machine_mb,
            "per_process_mb": sandbox.memory.per_process_mb,
            "processes_per_run": sandbox.memory.processes_per_run,
            "runs_at_once": sandbox.memory.runs,
            "held_by_cgroups": sandbox.memory.cgroup,
        },
        "warm_pool": warm,
        "ground_truth": truth,
        "notes": notes,
        "warnings": warnings,
        "plugins": plugins,
        "running_as_root": os.geteuid() == 0,
        "api_keys": keys,
    }
    print(json.dumps(data))
    return 1 if broken else 0


#: The longest probe detail said (a probe's own words: the disk probe's run
#: to about 90 characters, and were cut at 60 mid-word).
PROBE_DETAIL = 300


def red(line: str) -> None:
    """A line that must not be missed: red and bold on a terminal, plain when piped."""
    from rich.console import Console

    Console(highlight=False, soft_wrap=True).print(one_line(line), style="bold red", markup=False)


def plugin_report() -> dict[str, Any]:
    """The plugins of each registry (workflows, providers, datasets): those
    loaded, those refused (one line each, with why) and what they printed
    while they loaded. The workflows' are at the top level, as before."""
    from ..core.bench.sources import SOURCES
    from ..core.llm.registry import PROVIDERS
    from ..core.workflows import WORKFLOWS

    def report(registry: Registry[Any]) -> dict[str, list[str]]:
        return {"loaded": registry.plugin_names(), "refused": registry.refused_lines(), "said": list(registry.said)}

    datasets: dict[str, list[str]] = {**report(SOURCES), "papers_refused": refused_papers()}
    return {**report(WORKFLOWS), "providers": report(PROVIDERS), "datasets": datasets}


def refused_papers() -> list[str]:
    """The dataset plugins' paper files that were not read, one line each
    with why (``bench paper`` and the figures beside a bench leave them out)."""
    from ..core.bench.papers import REFUSED_PAPERS, papers

    try:
        papers()
    except Exception as exc:  # qflow's own files unreadable: said, never a traceback
        return [one_line(f"the papers could not be read: {type(exc).__name__}: {exc}", 400)]
    return list(REFUSED_PAPERS)


def print_plugins(plugins: dict[str, Any], out: TextIO) -> None:
    parts = [
        ("workflow", plugins, "qflow.workflows"),
        ("provider", plugins["providers"], "qflow.providers"),
        ("dataset", plugins.get("datasets") or {"loaded": [], "refused": [], "said": []}, "qflow.datasets"),
    ]
    for kind, part, group in parts:
        loaded = ", ".join(part["loaded"]) or "none"
        print(f"{kind} plugins: {loaded} ({group} entry points besides the built-ins)", file=out)
        for line in part["refused"]:
            print(f"  refused: {one_line(line, 400)}", file=out)
        for line in part["said"]:
            print(f"  printed while loading: {one_line(line, 400)}", file=out)
        for line in part.get("papers_refused", []):
            print(f"  paper refused: {one_line(line, 400)}", file=out)


def ground_truth_report(on: bool, level_keeps_files: bool) -> dict[str, Any]:
    """Where ``qflow bench`` keeps EvalPlus's ground truth, how much is there,
    and whether it is used (the setting, and a level that keeps programs
    from your files)."""
    from ..core.sandbox.truth import folder_size
    from ..locations import ground_truth_dir

    folder = ground_truth_dir()
    files, size = folder_size(folder)
    return {"folder": str(folder), "files": files, "bytes": size, "on": on, "level_allows": level_keeps_files}


def print_ground_truth(truth: dict[str, Any], out: TextIO) -> None:
    held = f"{truth['files']} checks, {truth['bytes'] / 1e6:.1f} MB in {truth['folder']} (delete it to free the space)"
    if not truth["on"]:
        state = "off (setting truth_cache): computed every run"
    elif not truth["level_allows"]:
        state = "not used at this isolation level (a program could reach the folder): computed every run"
    else:
        state = "on (setting truth_cache, QFLOW_TRUTH_CACHE=0 turns it off)"
    print(f"EvalPlus ground truth kept by qflow bench: {state}; {held}", file=out)


def warm_pool_report() -> tuple[dict[str, Any], str | None, bool]:
    """The warm children a run with the user's settings keeps, and their cost:
    the probes' kinds are let go, one trivial run teaches the pool a run's
    kind, and the pool is given time to warm it. A config file that cannot be
    read is a note (the defaults are shown), not a refusal. Also whether the
    config keeps ground truth (``truth_cache``)."""
    from ..core.config import ConfigError, RunConfig
    from ..core.sandbox import SandboxUnavailable, pool
    from ..core.workflow_run import build_sandbox
    from ..core.workflows.values import load_config

    note = None
    try:
        config = load_config()
    except ConfigError as exc:
        config, note = RunConfig(), f"the config file was not read ({exc}): the warm pool is shown with the defaults"
    pool.shutdown()
    try:
        sandbox = build_sandbox(config)
    except SandboxUnavailable as exc:  # a weak level refused as root: said in red above
        return pool.warm_pool().report(), note or one_line(str(exc)), config.truth_cache
    if pool.enabled():
        sandbox.run_tests_sync("def f():\n    return 0\n", ["assert f() == 0"])
        pool.warm_pool().settle(WARM_WAIT)
    return pool.warm_pool().report(), note, config.truth_cache


#: Seconds ``qflow doctor`` gives the pool to boot its children.
WARM_WAIT = 15.0


def print_warm_pool(warm: dict[str, Any], out: TextIO) -> None:
    if not warm["on"]:
        print("warm sandbox children: off (setting sandbox_warm): each run starts its own", file=out)
        return
    print(
        "warm sandbox children: on (setting sandbox_warm, QFLOW_SANDBOX_WARM=0 turns it off): "
        f"up to {warm['per_kind'] or '?'} per kind of process, at most {warm['max_kinds']} kinds; "
        "idle after one run:",
        file=out,
    )
    if not warm["kinds"]:
        print("  none yet", file=out)
    for kind in warm["kinds"]:
        print(
            f"  {kind['isolation']}, {kind['process']} process: {kind['idle']} idle, "
            f"{kind['processes']} processes, {kind['memory_kb'] / 1024:.1f} MB (proportional set size)",
            file=out,
        )
    print_zygote(warm.get("zygote") or {}, out)


def print_zygote(report: dict[str, Any], out: TextIO) -> None:
    """Whether bwrap's children are forks of a zygote, and its cost or why not."""
    if not report.get("on"):
        print("zygote: off (QFLOW_SANDBOX_ZYGOTE=0, or warm children off): each child starts bwrap", file=out)
        return
    zygotes = report.get("zygotes") or []
    if not zygotes:
        print("zygote: none started (it serves bwrap's levels only)", file=out)
    for z in zygotes:
        if z["ready"]:
            print(
                f"zygote: each child under bwrap is a fork of it, in namespaces of its own; "
                f"{z['processes']} processes, {z['memory_kb'] / 1024:.1f} MB (proportional set size)",
                file=out,
            )
        else:
            print(f"zygote: not used, children start bwrap each ({z['why'] or 'it ended'})", file=out)
