"""The narrow sandbox protocols (core/sandbox/api.py): the real sandbox and
the test suite's double implement them, with the real signatures."""

from __future__ import annotations

import inspect

from qflow_tui.core.sandbox import CheckingSandbox, Sandbox, SandboxConfig, SandboxProtocol
from tests.helpers import TestSandbox


def _members(proto: type) -> list[str]:
    return [n for n in vars(proto) if not n.startswith("_")]


def test_each_protocol_method_has_the_real_sandboxs_signature():
    for proto in (SandboxProtocol, CheckingSandbox):
        for name in _members(proto):
            ours = getattr(proto, name)
            if name == "config":  # an attribute of each Sandbox, set from its argument
                assert "config" in inspect.signature(Sandbox).parameters
                continue
            real = getattr(Sandbox, name)
            if isinstance(ours, property):
                assert isinstance(real, property), name
                continue
            assert inspect.signature(ours) == inspect.signature(real), name


def test_the_real_sandbox_and_the_suites_double_implement_the_protocol():
    real = Sandbox(SandboxConfig(isolation="rlimits"))
    double = TestSandbox()
    for box in (real, double):
        assert isinstance(box, CheckingSandbox)
        assert isinstance(box, SandboxProtocol)
    assert double.interpreter == real.interpreter
