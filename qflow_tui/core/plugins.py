"""Plugins: what third-party packages register in qflow's entry-point groups
(``qflow.workflows``, ``qflow.providers``, ``qflow.datasets``, each one
:class:`Registry`), found and loaded so that a broken, careless or hanging one is refused with one line
that names it and says why, and never takes qflow down, hides itself, replaces
a built-in or writes to the terminal.

:func:`load_group` is the one loader. For each group a caller gives a check
(``check(obj, entry)``: return the checked object, or raise
:class:`PluginRefused` with the reason) and how to name what it loaded; it gets
back what loaded and, one :class:`Refusal` each, what did not:

- An import or a check that raises anything, ``SystemExit`` and
  ``KeyboardInterrupt`` included, is a refusal with the exception's words. A
  Ctrl+C the *user* presses while plugins load still ends qflow (it reaches the
  main thread, which only waits).
- A plugin that hangs at import is refused once :data:`TIMEOUT_ENV` seconds
  (default :data:`DEFAULT_TIMEOUT`) have passed. In-process, Python can neither
  kill a thread nor interrupt a blocking call in one, so each plugin is imported
  on a daemon thread of its own that the loader waits for with a deadline: past
  it, the plugin is reported as hanging and skipped, its thread left behind
  (it ends with the process, and may hold its own module's import lock, which
  nothing else needs). A hang that holds the GIL inside C code, or a plugin that
  calls ``os._exit`` or signals the process, is beyond what any in-process
  loader can contain; only a process of its own per plugin would be, at the
  cost of an interpreter start per plugin on every command (``python -c pass``
  took 0.11-0.20 s on the 2-core machine at load 8-10; a plugin is code the
  user chose to install, so this is not the sandbox's job). What a plugin prints
  while it loads is caught, cleaned and kept (:attr:`Loaded.said`), so that it
  never corrupts ``--json`` output or the terminal.
- A plugin named like a built-in (an entry whose module lies outside
  ``qflow_tui``) is refused and the built-in stays, whatever ``sys.path``
  order; two plugins with one name are both refused (which one would win
  otherwise depends on that order).
- Every refusal's words are terminal-safe (:func:`~qflow_tui.core.safe_text.one_line`).

Entry points are read from the ``*.dist-info/entry_points.txt`` files on
``sys.path`` directly, as :func:`importlib.metadata.entry_points` finds them
(the first distribution of each name wins): measured in one process at load
about 10, this took 2.9 ms where importing ``importlib.metadata`` took 82 ms
and its query 20 ms more, and every command parses its flags from the
workflows' settings.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import io
import os
import re
import sys
import threading
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from .safe_text import one_line
from .typecheck import TEXT_LIMIT, field_types, is_callable_type, safe_strings, type_problem

T = TypeVar("T")

#: Seconds a plugin may take to import and be checked before it is reported as
#: hanging; ``QFLOW_PLUGIN_TIMEOUT`` sets another.
DEFAULT_TIMEOUT = 10.0
TIMEOUT_ENV = "QFLOW_PLUGIN_TIMEOUT"
#: Modules under this package are qflow's own: their entries are the built-ins.
BUILTIN_PREFIX = "qflow_tui."
#: The most a plugin's printing at load is kept, in characters.
SAID_LIMIT = 2000


@dataclass(frozen=True)
class EntryPoint:
    """One ``name = module:attribute`` line of an entry-point group."""

    group: str
    name: str
    value: str
    distribution: str = ""
    """The normalised name of the distribution that registers it (``qflow_tui``);
    empty when it was not read from one."""

    @property
    def module(self) -> str:
        return self.value.partition(":")[0].strip()

    @property
    def builtin(self) -> bool:
        """qflow's own (its module is in the ``qflow_tui`` package)."""
        return self.module.startswith(BUILTIN_PREFIX)

    def where(self) -> str:
        """``name (module:attribute)``, terminal-safe, for a message."""
        return f"{one_line(self.name, 80)} ({one_line(self.value, 160)})"


def _distribution(folder_entry: str) -> str:
    return re.sub(r"[-_.]+", "_", folder_entry.rsplit(".", 1)[0].split("-", 1)[0]).lower()


def entry_points(group: str, path: Iterable[str] | None = None) -> list[EntryPoint]:
    """Every entry of ``group`` registered by the distributions installed on
    ``sys.path`` (or ``path``), the first of each distribution name winning, as
    :func:`importlib.metadata.entry_points` finds them."""
    seen: set[str] = set()
    found: list[EntryPoint] = []
    header = f"[{group}]"
    for folder in sys.path if path is None else path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            distribution = _distribution(name)
            if distribution in seen:
                continue
            seen.add(distribution)
            try:
                with open(os.path.join(folder or ".", name, "entry_points.txt"), encoding="utf-8") as file:
                    text = file.read(1 << 20)
            except (OSError, UnicodeDecodeError):
                continue
            if header not in text:
                continue
            for line in text.split(header, 1)[1].split("\n[", 1)[0].splitlines():
                key, sep, value = line.partition("=")
                if sep and key.strip() and not key.lstrip().startswith(("#", ";")):
                    found.append(EntryPoint(group, key.strip(), value.strip(), distribution))
    return found


class PluginRefused(Exception):
    """Raised by a group's check: the plugin is not used, for the reason given
    (one line, said after the plugin's name)."""


@dataclass(frozen=True)
class Refusal:
    """A plugin that is not used, and why, in words safe to print."""

    entry: EntryPoint
    reason: str

    def line(self) -> str:
        """``name (module:attribute): reason``."""
        return f"{self.entry.where()}: {one_line(self.reason, TEXT_LIMIT)}"


@dataclass
class Loaded(Generic[T]):
    """What one group's entries gave."""

    found: dict[str, T] = field(default_factory=dict)
    """The loaded and checked objects by name, the built-ins first."""
    refused: list[Refusal] = field(default_factory=list)
    entries: dict[str, EntryPoint] = field(default_factory=dict)
    """The entry each found object came from, by name."""
    said: list[str] = field(default_factory=list)
    """What plugins printed while they loaded, one cleaned line per plugin
    (``name: text``)."""


def timeout() -> float:
    """Seconds each plugin may take to load (:data:`TIMEOUT_ENV`)."""
    raw = os.environ.get(TIMEOUT_ENV, "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if 0 < value < 86_400 else DEFAULT_TIMEOUT


def import_target(value: str) -> object:
    """The object ``module:attribute.path`` names, imported."""
    module, _, attribute = value.partition(":")
    target: object = importlib.import_module(module.strip())
    for part in attribute.strip().split(".") if attribute.strip() else []:
        target = getattr(target, part)
    return target


def exception_words(exc: BaseException) -> str:
    """``ImportError: needs a newer numpy``, on one line, terminal-safe."""
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({one_line(repr(exc.code), 60)}) while loading"
    text = one_line(str(exc), TEXT_LIMIT)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Capture(io.TextIOBase):
    """Stands in for sys.stdout and sys.stderr while plugins load: keeps what
    they print (up to :data:`SAID_LIMIT` characters)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if isinstance(text, str) and self.size < SAID_LIMIT:
            self.parts.append(text[: SAID_LIMIT - self.size])
            self.size += len(self.parts[-1])
        return len(text) if isinstance(text, str) else 0

    def take(self) -> str:
        text, self.parts, self.size = "".join(self.parts), [], 0
        return one_line(text, SAID_LIMIT).strip()


#: Threads loading a plugin right now (their idents): what they ask of a
#: registry while it loads gets the part loaded so far (see :func:`loading_thread`).
_LOADERS: set[int] = set()


def loading_thread() -> bool:
    """Whether the calling thread is loading a plugin (so a registry it reads
    must answer from what it has, not wait for the load it is part of)."""
    return threading.get_ident() in _LOADERS


def bounded(call: Callable[[], T], seconds: float, what: str) -> T:
    """``call()`` on a daemon thread of its own, within ``seconds``. Whatever
    it raises (BaseException included) is :class:`PluginRefused` with its words;
    running past the deadline is :class:`PluginRefused` saying it hangs (the
    thread is left to end with the process). A KeyboardInterrupt the user
    presses meanwhile reaches the calling thread and ends the wait."""
    box: dict[str, Any] = {}

    def work() -> None:
        _LOADERS.add(threading.get_ident())
        try:
            box["value"] = call()
        except BaseException as exc:
            box["error"] = exc
        finally:
            _LOADERS.discard(threading.get_ident())

    thread = threading.Thread(target=work, name=f"qflow plugin {what}", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise PluginRefused(
            f"it did not finish loading within {seconds:g} s (it hangs at import): skipped "
            f"({TIMEOUT_ENV} gives a slow one longer)"
        )
    if "error" in box:
        error = box["error"]
        if isinstance(error, PluginRefused):
            raise error
        raise PluginRefused(exception_words(error))
    value: T = box["value"]
    return value


def load_group(
    group: str,
    check: Callable[[object, EntryPoint], T],
    name_of: Callable[[T], str],
    *,
    entries: list[EntryPoint] | None = None,
    fallback: Callable[[], list[EntryPoint]] | None = None,
    kind: str = "plugin",
    seconds: float | None = None,
    builtins_loaded: Callable[[dict[str, T]], None] | None = None,
) -> Loaded[T]:
    """Load every entry of ``group`` (or ``entries``) as the module docstring
    says. ``check`` runs on the loading thread too (it is bounded with the
    import). ``fallback`` gives the built-in entries when none is installed
    (a checkout run without being installed). ``kind`` names what is loaded in
    messages (``workflow``); ``builtins_loaded`` is called with the built-ins
    before any plugin is imported (a registry answers from them meanwhile)."""
    every = entry_points(group) if entries is None else entries
    ours = [e for e in every if e.builtin]
    theirs = [e for e in every if not e.builtin]
    if not ours and fallback is not None:
        ours = fallback()
    loaded: Loaded[T] = Loaded()
    for entry in ours:  # qflow's own code: loaded here, first, whatever the path order
        try:
            obj = check(import_target(entry.value), entry)
        except Exception as exc:  # a bug of ours is still one line, not a dead app
            loaded.refused.append(Refusal(entry, exception_words(exc)))
            continue
        if name_of(obj) not in loaded.found:
            loaded.found[name_of(obj)] = obj
            loaded.entries[name_of(obj)] = entry
    builtin_names = set(loaded.found)
    if builtins_loaded is not None:
        builtins_loaded(dict(loaded.found))
    limit = timeout() if seconds is None else seconds
    candidates: list[tuple[EntryPoint, T]] = []
    capture = _Capture()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = capture
    try:
        for entry in theirs:
            if entry.name in builtin_names:
                loaded.refused.append(Refusal(entry, _clash(kind, entry.name)))
                continue
            try:
                obj = bounded(functools.partial(_import_checked, check, entry), limit, entry.name)
            except PluginRefused as exc:
                loaded.refused.append(Refusal(entry, str(exc)))
            else:
                name = name_of(obj)
                if name in builtin_names:
                    loaded.refused.append(Refusal(entry, _clash(kind, name)))
                else:
                    candidates.append((entry, obj))
            said = capture.take()
            if said:
                loaded.said.append(f"{entry.where()}: {said}")
    finally:
        sys.stdout, sys.stderr = saved
    names = [name_of(obj) for _, obj in candidates]
    for entry, obj in candidates:
        name = name_of(obj)
        if names.count(name) > 1:
            others = ", ".join(e.where() for e, o in candidates if name_of(o) == name and e is not entry)
            loaded.refused.append(
                Refusal(
                    entry,
                    f"another plugin also names its {kind} {one_line(name, 80)!r} ({others}): neither is used, "
                    "since which one wins would depend on sys.path order; uninstall one",
                )
            )
        else:
            loaded.found[name] = obj
            loaded.entries[name] = entry
    return loaded


def _import_checked(check: Callable[[object, EntryPoint], T], entry: EntryPoint) -> T:
    return check(import_target(entry.value), entry)


def _clash(kind: str, name: str) -> str:
    return (
        f"it is named like the built-in {kind} {one_line(name, 80)!r}: refused, the built-in one is used "
        "(the plugin must choose another name)"
    )


class Registry(Mapping[str, T]):
    """Every object of one entry-point group by name, the built-ins first:
    the one plugin registry behind workflows, providers and datasets.

    The entries are read, imported and checked (:func:`load_group`) the first
    time it is asked, once, under a lock; a plugin that asks for it while it
    loads gets the built-ins. ``builtins`` gives the built-in entries when no
    distribution registers them (a checkout run without being installed);
    ``settle`` may refuse more once all are loaded (it returns the refusals,
    the registry is already answering with every object then); ``order`` sorts
    the result. :meth:`register` adds one in this process only (tests,
    embedding); :meth:`refused_lines` and :meth:`plugin_names` are what
    ``qflow doctor`` and every command's stderr say."""

    def __init__(
        self,
        group: str,
        kind: str,
        check: Callable[[object, EntryPoint], T],
        name_of: Callable[[T], str],
        builtins: Callable[[], list[EntryPoint]],
        *,
        settle: Callable[[dict[str, T], Loaded[T]], list[Refusal]] | None = None,
        order: Callable[[tuple[str, T]], tuple[int, str]] | None = None,
    ) -> None:
        self.group = group
        self.kind = kind
        self._check = check
        self._name_of = name_of
        self._builtins = builtins
        self._settle = settle
        self._order = order
        self._found: dict[str, T] | None = None
        self._loading: dict[str, T] = {}
        self._lock = threading.RLock()
        self.extra: dict[str, T] = {}
        """Registered in this process with :meth:`register`."""
        self.entries: dict[str, EntryPoint] = {}
        """The entry each object came from, by name."""
        self.refused: list[Refusal] = []
        """The entries that were not loaded, and why."""
        self.said: list[str] = []
        """What plugins printed while they loaded (cleaned, one line each)."""

    @property
    def loaded(self) -> bool:
        """Whether the entry points were read (asking for an object reads them)."""
        return self._found is not None

    @property
    def found(self) -> dict[str, T]:
        """The objects the entry points gave, by name (read the first time)."""
        found = self._found
        if found is not None:
            return found
        if loading_thread():
            # A plugin that asks while it loads gets the built-ins: waiting for
            # the load it is part of would hang it.
            return self._loading
        with self._lock:
            if self._found is None:
                self._load()
            assert self._found is not None
            return self._found

    def _load(self) -> None:
        def builtins_loaded(done: dict[str, T]) -> None:
            self._loading = done

        loaded = load_group(
            self.group,
            self._check,
            self._name_of,
            fallback=self._builtins,
            kind=self.kind,
            builtins_loaded=builtins_loaded,
        )
        self.entries = dict(loaded.entries)
        self.said = list(loaded.said)
        found = dict(loaded.found)
        self._found = found  # published first: a settle step's plugin code may read it
        refused = list(loaded.refused)
        if self._settle is not None:
            refused += self._settle(found, loaded)
        self.refused = refused
        self._found = dict(sorted(found.items(), key=self._order)) if self._order is not None else found

    def _all(self) -> dict[str, T]:
        found = self.found
        if not self.extra:
            return found
        return {**found, **{k: v for k, v in self.extra.items() if k not in found}}

    def __getitem__(self, name: str) -> T:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def register(self, name: str, obj: T) -> None:
        """Add ``obj`` as ``name`` in this process (an installed one of that name wins)."""
        self.extra[name] = obj

    def builtin(self, name: str) -> bool:
        """Whether ``name`` is one of qflow's own."""
        entry = self.entries.get(name)
        return entry is not None and entry.builtin

    def refused_lines(self) -> list[str]:
        """The entries not loaded, one terminal-safe line each (``name (module:attribute): why``)."""
        self.found  # noqa: B018 - reads the entry points
        return [r.line() for r in self.refused]

    def plugin_names(self) -> list[str]:
        """The plugins loaded (not qflow's own), in the registry's order."""
        return [name for name in self.found if not self.builtin(name)]

    def refusal(self, name: str) -> Refusal | None:
        """Why the entry called ``name`` was not loaded, if it was not."""
        self.found  # noqa: B018 - reads the entry points
        return next((r for r in self.refused if r.entry.name == name), None)

    def reset(self) -> None:
        """Forget what was read: the next question reads the entry points again
        (tests that install a plugin)."""
        with self._lock:
            self._found, self._loading = None, {}
            self.entries, self.refused, self.said = {}, [], []


def entry_names(group: str) -> list[str]:
    """The names registered in ``group``, nothing imported (a ``--help`` line)."""
    return list(dict.fromkeys(e.name for e in entry_points(group)))


class Guarded:
    """A plugin's function, each of whose answers is checked against its
    declared return type and made terminal-safe before anyone sees it; what it
    raises, or a wrong answer, becomes ``error`` (one line naming it)."""

    def __init__(
        self,
        function: Callable[..., object],
        params: tuple[object, ...],
        returns: object,
        where: str,
        error: Callable[[str], Exception],
        names: Mapping[str, object],
    ) -> None:
        self.function = function
        self.params = params
        self.returns = returns
        self.where = where
        self.error = error
        self.names = names

    def __call__(self, *args: object, **kwargs: object) -> object:
        try:
            out = self.function(*args, **kwargs)
        except Exception as exc:
            raise self.error(f"its {self.where} failed: {exception_words(exc)}") from None
        problem = type_problem(out, self.returns, f"what its {self.where} returned", self.names)
        if problem:
            raise self.error(problem)
        return safe_strings(out)

    def __repr__(self) -> str:
        return f"Guarded({self.where})"


def guard_functions(
    obj: T,
    error: Callable[[str], Exception],
    names: Mapping[str, object] | None = None,
    where: str = "",
    depth: int = 0,
) -> T:
    """A copy of the dataclass instance ``obj`` (and of the dataclasses in its
    fields) whose fields declared ``Callable[[...], R]`` hold :class:`Guarded`
    wrappers of the plugin's functions."""
    names = names or {}
    if depth > 20 or not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return obj
    hints = field_types(type(obj), names)
    changed: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        path = f"{where}.{f.name}" if where else f.name
        annotation = hints[f.name]
        if is_callable_type(annotation) and callable(value) and not isinstance(value, Guarded):
            args = typing.get_args(annotation)
            params = tuple(args[0]) if args and isinstance(args[0], list) else ()
            returns = args[-1] if args else Any
            changed[f.name] = Guarded(value, params, returns, path, error, names)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            guarded = guard_functions(value, error, names, path, depth + 1)
            if guarded is not value:
                changed[f.name] = guarded
    if not changed:
        return obj
    out = copy.copy(obj)
    for name, new in changed.items():
        object.__setattr__(out, name, new)
    return out


def probe_functions(obj: object, samples: Mapping[type, object], depth: int = 0) -> None:
    """Call each :class:`Guarded` function of ``obj`` (see
    :func:`guard_functions`) whose parameters all have a sample value, once:
    a function that fails, or answers with the wrong type, raises its error."""
    if depth > 20 or not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, Guarded):
            if value.params and all(isinstance(p, type) and p in samples for p in value.params):
                value(*(samples[p] for p in value.params if isinstance(p, type)))
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            probe_functions(value, samples, depth + 1)


__all__ = [
    "DEFAULT_TIMEOUT",
    "TIMEOUT_ENV",
    "EntryPoint",
    "Guarded",
    "Loaded",
    "PluginRefused",
    "Refusal",
    "Registry",
    "bounded",
    "entry_names",
    "entry_points",
    "exception_words",
    "guard_functions",
    "import_target",
    "load_group",
    "loading_thread",
    "probe_functions",
]
