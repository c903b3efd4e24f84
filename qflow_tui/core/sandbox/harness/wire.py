# -- part header: for ruff and mypy; the launcher leaves it out --
"""The messages the app and a sandbox child exchange, as types: one module
that both sides read (see ``protocol`` for what each message means).

A part of the child script (see ``harness/__init__.py``). The types are in
this header, which mypy reads and the launcher leaves out: the child needs
none of them at run time (its parts name them in type comments), the app
imports them from here (``sandbox.watchdog``, ``sandbox.servers``, ...). What
both sides need at run time, the kinds of reply an oracle waits for, is the
part's body.

A message the app *receives* is untrusted until read field by field: it is a
:data:`Incoming` (any JSON object) until then. The types below say what each
side *sends*, and what the app hands on once it has checked an answer.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias, TypedDict, final


from ...jsontypes import JSONValue

#: A message as the app reads it, before its fields are checked: the JSON
#: object of its line, with ``vj`` (the raw JSON text of a value that followed
#: the line, see ``protocol``) and ``_own`` (the child's own time at it, see
#: ``clock``) put in by the app.
Incoming: TypeAlias = dict[str, JSONValue | bytes]

#: An encoded value (see ``codec.encode_value``): JSON, checked by the side that decodes it.
Encoded: TypeAlias = JSONValue


# ------------------------------------------------------- the job (app -> child)
class Seccomp(TypedDict):
    path: list[str]


#: The resource limits a child sets on itself (see ``channel._set_limits``):
#: bytes of address space (``as``), CPU seconds, processes, file size, open files, core size.
Limits = TypedDict(
    "Limits", {"as": int, "cpu": int | None, "nproc": int, "fsize": int, "nofile": int, "core": int}, total=False
)


class Landlock(TypedDict):
    """The paths Landlock leaves readable (``ro``) and the devices it leaves usable."""

    ro: list[str]
    dev: list[str]


class Job(TypedDict, total=False):
    """A child's first line: what it runs and under what limits (the boot
    keys, ``watchdog.BOOT_KEYS``, go first to a warm child, the rest later)."""

    k: Literal["boot"]
    mode: Literal["program", "oracle", "probe"]
    shared: bool
    seccomp: Seccomp | None
    guard_uid: bool
    landlock: Landlock | None
    cgroup_fds: list[int] | None
    timeout: float
    max_value: int
    limits: Limits
    setup: str
    packages: list[str]
    charge: str
    wall_factor: float
    program: str
    proxies: list[str]


class Begin(TypedDict):
    """What a shared oracle's run opens with: its setup, proxies and limits."""

    setup: str
    proxies: list[str]
    timeout: float
    max_value: int
    cpu: int | None


# -------------------------------------------- requests to the program process
@final
class SrcRequest(TypedDict):
    """Evaluate each call source in the program's namespace."""

    i: int
    src: list[str]


class FnCall(TypedDict):
    """One call of a function the program defines (its arguments encoded)."""

    a: list[Encoded]
    kw: list[Encoded]
    """``[name, encoded value]`` pairs."""
    t: NotRequired[float]
    m: NotRequired[int]


@final
class FnRequest(FnCall):
    i: int
    fn: str


class SrcPart(TypedDict):
    src: list[str]


class SrcBatch(TypedDict):
    """Requests to evaluate call sources, in one line: each part is answered
    as a :class:`SrcRequest` numbered ``i``, ``i + 1``, ... would be."""

    i: int
    batch: list[SrcPart]


class FnBatch(TypedDict):
    """Calls of one function, in one line: each part is answered as a
    :class:`FnRequest` numbered ``i``, ``i + 1``, ... would be."""

    i: int
    fn: str
    batch: list[FnCall]


class Bye(TypedDict):
    k: Literal["bye"]


# --------------------------------------------- requests to the oracle process
class OracleRequest(TypedDict):
    """A request to the oracle; ``op`` says which, the rest are its fields."""

    op: Literal["leaf", "leaves", "assert", "check"]
    i: NotRequired[int]
    begin: NotRequired[Begin]
    src: NotRequired[str]
    srcs: NotRequired[list[str]]
    each: NotRequired[float]
    expr: NotRequired[str]
    subjects: NotRequired[list[Encoded]]
    fn: NotRequired[str]
    entry: NotRequired[str | None]
    limit: NotRequired[float]
    loaded: NotRequired[float]
    truth: NotRequired[Literal["read", "write"]]


# ---------------------------------- what a child sends the app (untrusted)
class Hello(TypedDict):
    """A child's first message, before any untrusted code runs."""

    k: Literal["hello"]
    pid: int
    uid: int
    seccomp: str | None
    landlock: str | None
    cgroup: str | None
    python: str
    mode: str
    guardian: int | None


class Loaded(TypedDict):
    k: Literal["loaded"]


class LoadError(TypedDict):
    k: Literal["load_error"]
    e: str


class Result(TypedDict, total=False):
    """A child's answer to request ``i``: its values, or ``st`` and ``e``
    (the oracle's answers, :class:`OracleAnswer`, are results too)."""

    k: Literal["res"]
    i: int
    v: list[Encoded]
    vn: int
    st: str
    e: str


class Call(FnCall):
    """An oracle's call of a proxy (a function of the program), answered by a :class:`Ret` or :class:`Exc`."""

    k: Literal["call"]
    c: int
    fn: str


class Calls(TypedDict):
    """An oracle's batch of calls of one proxy, answered by one :class:`Rets`;
    ``u``: the seconds they share."""

    k: Literal["calls"]
    c: int
    fn: str
    items: list[FnCall]
    u: NotRequired[float]


#: An oracle asks for ground-truth records from record ``from`` (answered by :class:`TruthSizes`).
TruthAsk = TypedDict("TruthAsk", {"k": Literal["truth"], "c": int, "from": int, "n": int, "bytes": int})

#: An oracle hands over ground-truth records to keep (answered by :class:`Kept`).
Keep = TypedDict("Keep", {"k": Literal["keep"], "c": int, "from": int, "recs": list[str] | None})


# ------------------------------------------- the app's answers to an oracle
class Ret(TypedDict):
    """A call's value: its raw JSON text follows the line (``vn`` bytes), or ``v``."""

    k: Literal["ret"]
    d: float
    vn: NotRequired[int]
    v: NotRequired[Encoded]
    c: NotRequired[int]


class Exc(TypedDict):
    """A call that gave no value: ``st`` says why (raised, fail, timeout, error)."""

    k: Literal["exc"]
    st: str
    e: str
    c: NotRequired[int]


class Rets(TypedDict):
    """A batch of calls' answers, up to the first that is not a value."""

    k: Literal["rets"]
    items: list[Ret | Exc]
    c: NotRequired[int]


class TruthSizes(TypedDict):
    """The sizes of the ground-truth records whose bytes follow the line."""

    k: Literal["truth"]
    sizes: list[int]
    c: NotRequired[int]


class Kept(TypedDict):
    k: Literal["kept"]
    c: NotRequired[int]


#: What the app sends an oracle that asked it something.
OracleReply: TypeAlias = Ret | Exc | Rets | TruthSizes | Kept


# ------------------------------------------------- answers inside the app
class CallReply(TypedDict, total=False):
    """The program process's answer to one request, once the app has checked
    it (``Servers.call``): ``v``, a ``src`` request's values (encoded); or
    ``vj``, an ``fn`` request's value as its JSON text (relayed unread); or
    ``st`` (raised, notplain, timeout, error or load) and ``e``, what went
    wrong. ``d``: the program's own time for it."""

    v: list[Encoded]
    vj: bytes
    d: float
    st: str
    e: str


# -- end of part header --

#: The kinds of line an oracle that asked the app something takes for its
#: answer (every other line is a request, kept for later): ``Ret``, ``Exc``,
#: ``Rets``, ``TruthSizes``, ``Kept``.
_REPLY_KINDS = ("ret", "exc", "rets", "truth", "kept")
