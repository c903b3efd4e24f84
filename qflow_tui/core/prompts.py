"""Prompt templates, one text file per variant under ``prompts/<workflow>/<agent>/``
(agents address their folder as ``<workflow>/<agent>``).

A file is an optional system prompt, a line ``---``, then the user message.
Placeholders are ``{{name}}``; any other braces (Python code, dicts) are left
alone. Files sort by name; variants are the files named ``variant-*.txt`` (or
another family, e.g. the program generator's ``clarified-*.txt``).

Stdin/stdout problems (``Problem.kind == "io"``) have prompts of their own in
``prompts/<workflow>/<agent>/io/``, same names; a library made for that kind
(:meth:`PromptLibrary.for_kind`, which a run's context does by itself) reads
them first, and the function prompts where an agent has no I/O file.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path

from ..locations import prompts_dir

_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


class PromptError(LookupError):
    """A prompt file that is missing, or a ``{{placeholder}}`` given no value;
    the message names the file or the placeholder. A run that meets one ends
    with it (a workflow's own bug, not the model's)."""


@dataclass(frozen=True)
class Prompt:
    """One prompt file, read: what :meth:`PromptLibrary.get` returns."""

    name: str
    """``<agent folder>/<file stem>`` (``writer/generate``), for messages."""
    system: str
    """The system prompt: the text before the line ``---`` (empty without one)."""
    user: str
    """The user message: the text after ``---`` (the whole file without one)."""

    def render(self, **values: str) -> tuple[str, str]:
        """``(system, user)`` with every ``{{placeholder}}`` filled from
        ``values``, each side stripped: the pair ``ctx.request(role, prompt)``
        takes. A placeholder without a value raises :class:`PromptError`
        naming it (nothing is sent half-filled); a value no placeholder names
        is ignored. Values go in as ``str(value)``, unescaped; braces that are
        not ``{{word}}`` (code, dicts) stay as written."""

        def sub(template: str) -> str:
            def repl(m: re.Match[str]) -> str:
                key = m.group(1)
                if key not in values:
                    raise PromptError(f"prompt {self.name} needs a value for {{{{{key}}}}}")
                return str(values[key])

            return _PLACEHOLDER.sub(repl, template)

        return sub(self.system).strip(), sub(self.user).strip()


_SNAPSHOTS: dict[Path, dict[Path, str]] = {}
_SNAPSHOTS_LOCK = threading.Lock()


def snapshot(root: Path) -> dict[Path, str]:
    """Every ``.txt`` file under ``root``, read once per process: the first
    library made for a folder reads all of it, and every later one reads the
    same texts. An install or an upgrade that replaces the package's files
    under a running app (``pip install 'qflow-tui[local]'`` while it is open)
    then cannot leave a run half-way between two versions, or without a file
    that was there when it started. The app reads qflow's own folder while
    the compose form is painted."""
    with _SNAPSHOTS_LOCK:
        files = _SNAPSHOTS.get(root)
        if files is None:
            files = {}
            if root.is_dir():
                for path in sorted(root.rglob("*.txt")):
                    try:
                        files[path] = path.read_text(encoding="utf-8")
                    except OSError:
                        continue  # unreadable: :meth:`PromptLibrary.get` says it is missing
            _SNAPSHOTS[root] = files
        return files


def _load(path: Path, text: str) -> Prompt:
    if "\n---\n" in text:
        system, user = text.split("\n---\n", 1)
    else:
        system, user = "", text
    return Prompt(f"{path.parent.name}/{path.stem}", system.strip(), user.strip())


class PromptLibrary:
    """Prompt files under ``root`` (qflow's prompts/ when not given), one
    folder per agent role: ``PromptLibrary(Path(__file__).with_name("prompts"))``
    for a workflow's own. A file is an optional system prompt, a line ``---``,
    then the user message, with ``{{placeholders}}``. ``kind`` ``io`` reads a
    role's ``io/`` folder first (prompts for problems that read stdin)."""

    def __init__(self, root: Path | None = None, kind: str = "function") -> None:
        self.root = root or prompts_dir()
        self._files = snapshot(self.root)
        self.kind = kind
        """``function`` or ``io``: the problem kind whose prompts come first."""
        # Per-instance caches (not functools.cache on methods, which would keep
        # every library alive for the life of the process).
        self._prompts: dict[tuple[str, str], Prompt] = {}
        self._variants: dict[tuple[str, str], tuple[Prompt, ...]] = {}

    def for_kind(self, kind: str) -> PromptLibrary:
        """The same prompts for a problem of ``kind`` (``io``: the I/O files first)."""
        return self if kind == self.kind else PromptLibrary(self.root, kind)

    def _folder(self, agent: str) -> Path:
        return self.root / agent / "io" if self.kind == "io" else self.root / agent

    def get(self, agent: str, name: str) -> Prompt:
        """``<root>/<agent>/<name>.txt``; :class:`PromptError` when it is missing."""
        if (agent, name) not in self._prompts:
            path = self._folder(agent) / f"{name}.txt"
            if path not in self._files:
                path = self.root / agent / f"{name}.txt"
            if path not in self._files:
                raise PromptError(f"missing prompt file {path}")
            self._prompts[agent, name] = _load(path, self._files[path])
        return self._prompts[agent, name]

    def variants(self, agent: str, family: str = "variant") -> tuple[Prompt, ...]:
        """The diversified prompts of one agent: ``<family>-*.txt``, by name."""
        if (agent, family) not in self._variants:
            folder = self._folder(agent)
            files = self._family(folder, family)
            if not files:
                folder = self.root / agent
                files = self._family(folder, family)
            if not files:
                raise PromptError(f"no {family}-*.txt prompt variants in {folder}")
            self._variants[agent, family] = tuple(_load(p, self._files[p]) for p in files)
        return self._variants[agent, family]

    def _family(self, folder: Path, family: str) -> list[Path]:
        """The files ``<folder>/<family>-*.txt`` of the snapshot, by name."""
        return sorted(p for p in self._files if p.parent == folder and p.name.startswith(f"{family}-"))
