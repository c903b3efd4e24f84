"""The wire between the app and a sandbox child: one JSON object per line.

Everything a child writes is untrusted. Reading it is bounded (a line longer
than the cap ends the child; nesting too deep for the JSON parser is a
malformed line, not a ``RecursionError``), and nothing here raises for any
input. Values inside messages stay encoded until ``harness.decode_value``
validates them (which also refuses sets and dicts whose elements share hashes).

Requests (app -> child, on the child's stdin; the first line is the job):

- program process: ``{"i", "src": [call sources]}`` (evaluate each call in the
  program's namespace; answered ``{"v": [values]}``) or ``{"i", "fn", "a":
  [values], "kw": [[name, value]], "t"?, "m"?}`` (call a function the program
  defines, within ``t`` seconds, reporting a value of at most ``m`` bytes;
  answered ``{"vn": n, "d": the call's own seconds}`` and, right after the
  line, the value's JSON text as ``n`` raw ASCII bytes, which the app reads
  by their count, never as lines, and never escapes again);
  ``{"k": "bye"}``. Requests the app has at once (a run's asserts, an
  oracle's window of calls) go in one line, ``{"i", "batch": [parts]}``
  (``"fn"`` and the other fields the parts share beside it): each part is
  answered as the request it stands for, numbered ``i``, ``i + 1``, ...,
  one answer per part, so the app times each (the program's own time is
  the app's measurement, never its word; see ``clock``).
- oracle process: a shared one's first request of a run carries ``"begin":
  {"setup", "proxies", "timeout", "max_value", "cpu"}`` (a fresh namespace,
  made before the request runs; the request is answered as any, or
  ``{"spent": true}`` by a process with too little CPU time left or grown
  large, which then exits); ``{"i", "op": "leaf", "src"}``, ``{"i", "op": "leaves",
  "srcs", "each"}`` (answered ``{"vs": [{"v"} or {"st", "e", "t"}]}``, each
  leaf within ``each`` seconds), ``{"i", "op": "assert",
  "expr", "subjects": [values]}``, ``{"i", "op": "check", "src", "fn",
  "entry", "limit"}``; while answering one, the oracle may send ``{"k":
  "call", "c", "fn", "a", "kw", "t"?, "m"?}`` and waits for ``{"k": "ret",
  "c", "vn" (the value's raw text follows the line, as above; or "v"), "d"}``
  (``d``: the call's time as the app judged it) or
  ``{"k": "exc", "c", "st", "e"}``; or, for a batch of calls (an EvalPlus
  check's window of inputs), ``{"k": "calls", "c", "fn", "items": [{"a",
  "kw", "t"?, "m"?}]}``, answered ``{"k": "rets", "c", "items": [ret or exc
  without "c"]}`` up to the first that is not a value, their values' raw
  texts after the line in order (the app sends the calls to the program's
  process at once). The app relays a value's text unread (the length is its
  own count of what it received); the oracle validates it. A ``check`` request may carry ``"truth": "read"``
  or ``"write"`` (an EvalPlus check's ground truth kept on disk, see
  ``truth``): the oracle then asks ``{"k": "truth", "c", "from", "n",
  "bytes"}``, answered ``{"k": "truth", "c", "sizes": [bytes of each
  record]}`` followed at once by the records' raw bytes (none: it computes
  them), or hands over ``{"k": "keep", "c", "from", "recs": [base64] or
  null}``, answered ``{"k": "kept", "c"}``.

Messages (child -> app, on a private pipe): ``hello``, then ``loaded`` or
``load_error``, then one ``{"k": "res", "i", ...}`` per request.

The two sides cannot get out of step: every answer carries the number of
what it answers, ``i`` for a request and ``c`` for an oracle's call (numbered
from 1 in each oracle process), and a line that answers anything else ends
that child. The app may send the oracle its requests at once; while the
oracle waits for a call's reply it keeps the requests it reads, in order,
and takes only a ``ret``/``exc`` line for the reply (before, it took the
next line, a queued request, as its reply).
"""

from __future__ import annotations

import json
import signal
from collections.abc import Mapping

from .harness.wire import Incoming

#: One decoder and one encoder for every line: ``json.loads`` and
#: ``json.dumps`` with an option make one per call, and the relay handles a
#: few thousand lines a bench.
_DECODE = json.JSONDecoder().decode
_ENCODE = json.JSONEncoder(separators=(",", ":")).encode


def parse_line(line: bytes) -> Incoming | None:
    """A message, or None for anything that is not one JSON object. A child
    writes UTF-8 (its JSON is ASCII): bytes that are not UTF-8 are not a
    message (``json.loads`` would also have taken UTF-16 and UTF-32)."""
    try:
        msg = _DECODE(line.decode("utf-8"))
    except (ValueError, RecursionError, MemoryError):
        return None
    return msg if type(msg) is dict else None


def encode_line(obj: Mapping[str, object]) -> bytes:
    return _ENCODE(obj).encode("utf-8") + b"\n"


def describe_exit(status: int | None) -> str:
    if status is None:
        return "the process closed its result channel and did not exit"
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = str(-status)
        hint = {
            "SIGXCPU": " (CPU time limit)",
            "SIGKILL": " (killed; memory or a limit)",
            "SIGSEGV": " (crash, e.g. stack overflow)",
            "SIGXFSZ": " (file size limit)",
        }.get(name, "")
        return f"the process was killed by {name}{hint}"
    return f"the process exited with status {status}"
