"""Values as JSON text that any JSON parser takes and a terminal shows
safely: no ``NaN`` or ``Infinity`` (JSON has neither: a figure that is not a
finite number is written ``null``), valid Unicode (a lone surrogate becomes
U+FFFD), and the characters a terminal or a JavaScript parser treats as
controls (C1, DEL, the bidirectional overrides, the line and paragraph
separators) written as ``\\u`` escapes; the C0 controls JSON escapes itself."""

from __future__ import annotations

import json
import math
import re

from ..safe_text import valid_text

_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def finite(value: object, depth: int = 0) -> object:
    """A copy of ``value`` (dicts, lists, tuples) with every float that is not
    finite as None and every string valid Unicode."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return valid_text(value)
    if depth > 100:
        return None
    if isinstance(value, dict):
        return {valid_text(k) if isinstance(k, str) else k: finite(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v, depth + 1) for v in value]
    return value


def dumps(value: object, indent: int | None = 2) -> str:
    """``value`` as strict JSON text (``json.loads(text, parse_constant=...)``
    that refuses ``NaN`` and ``Infinity`` reads it back)."""
    text = json.dumps(finite(value), indent=indent, ensure_ascii=False, allow_nan=False)
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
