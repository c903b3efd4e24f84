"""What the compose form says before a run starts, found off the form: the
red lines of a weak or missing sandbox, the plugins that were not loaded, and
what a local model server offers. Functions of no widget (the sandbox's and
the server's are asked on a thread)."""

from __future__ import annotations

from ...core.llm import LLMError, broken_providers, resolve_base_url
from ...core.llm.catalog import MAX_LISTED, server_model_list
from ...core.sandbox import WEAK_AS_ROOT_ENV, SandboxUnavailable, detect_isolation, weak_refusal, weak_warning
from ...core.workflows import broken_plugins

#: At most this many notice lines above the form (the tooltip has them all).
MAX_NOTICES = 4


def sandbox_lines() -> list[str]:
    """The red lines when a run would use a weak sandbox level, or none (it
    starts a child: called on a thread)."""
    try:
        iso = detect_isolation()
    except (SandboxUnavailable, ValueError) as exc:
        return [f"✗ the sandbox cannot run programs: {exc}"]
    warning = weak_warning(iso)
    lines = [f"✗ {warning}"] if warning else []
    if weak_refusal(iso):
        lines.append(
            f"✗ as root a run refuses this level: set {WEAK_AS_ROOT_ENV}=1 to accept the risk (`qflow doctor`)"
        )
    return lines


def notice_lines(sandbox: list[str]) -> tuple[list[str], str]:
    """The lines shown above the form and their tooltip: the sandbox's lines
    first (a run's safety), then the workflow and provider plugins that were
    not loaded, each with why; at most :data:`MAX_NOTICES` lines in all (the
    last says how many more plugins, ``qflow doctor`` says why), the tooltip whole."""
    refused = [f"workflow plugin not loaded: {line}" for line in broken_plugins()]
    refused += [f"provider plugin not loaded: {line}" for line in broken_providers()]
    room = MAX_NOTICES - len(sandbox)
    plugins = [f"✗ {line}" for line in refused]
    if len(plugins) > room:
        plugins = plugins[: max(0, room - 1)]
        plugins.append(f"✗ {len(refused) - len(plugins)} more plugins not loaded: `qflow doctor` says why")
    return [*sandbox, *plugins], "\n".join([*sandbox, *(f"✗ {r}" for r in refused)])


def server_models(base_url: str) -> tuple[list[str], str]:
    """The models a local server at ``base_url`` offers, and the one line to
    say under the Model field: why it cannot say, or that its list was cut
    (as ``qflow models`` says); asks the server, so called on a thread."""
    try:
        url = resolve_base_url("openai", base_url) or base_url
        listed = server_model_list(url)
    except LLMError as exc:
        return [], str(exc)
    names = [k.name for k in listed.models]
    if not listed.cut:
        return names, ""
    return names, (
        f"{listed.where} offers {listed.offered} models: the first {MAX_LISTED} complete here; "
        "type any other as openai/<id>"
    )
