"""Outside text made safe for an HTML page: as element text or an attribute
value (every markup character escaped, controls and bidirectional overrides
shown, not obeyed), and as JSON inside ``<script type="application/json">``
(``<``, ``>``, ``&`` and the line and paragraph separators written as ``\\u``
escapes, so no text can close the script element or start a comment)."""

from __future__ import annotations

import html
import re

from ..safe_text import valid_text
from . import jsontext

#: C0 controls but tab and newline, DEL and C1, and the bidirectional controls:
#: a crafted name could hide or reorder what a reviewer reads with them.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _shown(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def text(value: object) -> str:
    """``value`` as HTML text or a quoted attribute value: ``&<>"'`` escaped,
    invalid Unicode replaced, controls written as ``\\uXXXX``."""
    s = valid_text(value if isinstance(value, str) else str(value))
    return html.escape(_CONTROLS.sub(_shown, s.replace("\r\n", "\n")), quote=True)


_JSON_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(value: object) -> str:
    """``value`` as JSON text to put between ``<script type="application/json">``
    and ``</script>``: ``JSON.parse`` of the element's text gives it back."""
    dumped = jsontext.dumps(value, indent=None)
    return re.sub("[<>&\u2028\u2029]", lambda m: _JSON_UNSAFE[m.group()], dumped)
