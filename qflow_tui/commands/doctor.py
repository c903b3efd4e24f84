"""``qflow doctor``: what the sandbox can isolate with on this machine (each
layer and what it found, what the level protects against) and which API-key
variables are set (names only, never values)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from . import fail

#: Variables the app reads; only whether they are set is printed.
KEY_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "doctor", help="show the sandbox isolation level and which API keys are set", description=__doc__
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.sandbox import SandboxUnavailable, detect_isolation

    keys = {name: bool(os.environ.get(name)) for name in KEY_VARS}
    try:
        iso = detect_isolation()
    except (SandboxUnavailable, ValueError) as exc:
        return fail(f"sandbox unavailable: {exc}", code=3)
    data = {
        "isolation": iso.label,
        "layers": {
            "bwrap": iso.found.get("bwrap"),
            "seccomp": iso.found.get("seccomp"),
            "uid": iso.found.get("uid", "not root: runs as your own uid" if os.geteuid() != 0 else "not used"),
            "interpreter": iso.found.get("interpreter"),
        },
        "protects": iso.protects(),
        "notes": list(iso.notes),
        "running_as_root": os.geteuid() == 0,
        "api_keys": keys,
    }
    if getattr(args, "json", False):
        print(json.dumps(data))
        return 0
    out = sys.stdout
    print(f"sandbox isolation: {iso.label}", file=out)
    for name, found in data["layers"].items():
        print(f"  {name:<12} {found}", file=out)
    print("protects against:", file=out)
    for threat, ok in data["protects"].items():
        print(f"  [{'x' if ok else ' '}] {threat}", file=out)
    for note in iso.notes:
        print(f"  note: {note}", file=out)
    print("API keys (names only):", file=out)
    for name, present in keys.items():
        print(f"  {name:<20} {'set' if present else 'not set'}", file=out)
    return 0
