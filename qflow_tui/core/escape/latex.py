"""Text inside LaTeX that a plain ``pdflatex`` build typesets as written: on
one line, LaTeX's special characters escaped, the characters the default (OT1)
fonts would print as something else (``<`` as ``¡``) written as commands, and
every non-ASCII character written in ASCII: a sign the tables use as its
command, an accented letter as its accent command, anything else as its code
point (``[U+4E2D]``), so the output is pure ASCII and no ``Unicode character
not set up for use with LaTeX`` stops a build."""

from __future__ import annotations

import unicodedata

from ..safe_text import one_line

#: ASCII characters LaTeX reads as markup (or prints wrongly in OT1).
_ASCII = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    # OT1 has no straight quote or grave in its text fonts; its typewriter font has both.
    '"': r"\texttt{\char34}",
    "`": r"\texttt{\char18}",
}

#: The non-ASCII signs qflow's own words use, and a few common ones.
_SIGNS = {
    "±": r"$\pm$",
    "Δ": r"$\Delta$",
    "−": r"$-$",
    "↳": "",
    "↑": r"$\uparrow$",
    "↓": r"$\downarrow$",
    "→": r"$\rightarrow$",
    "∞": r"$\infty$",
    "·": r"$\cdot$",
    "×": r"$\times$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    "≈": r"$\approx$",
    "–": "--",
    "—": "---",
    "‘": "`",
    "’": "'",
    "“": "``",
    "”": "''",
    "…": r"\ldots{}",
    "\u00a0": "~",
    "ß": r"\ss{}",
    "æ": r"\ae{}",
    "Æ": r"\AE{}",
    "œ": r"\oe{}",
    "Œ": r"\OE{}",
    "ø": r"\o{}",
    "Ø": r"\O{}",
    "ł": r"\l{}",
    "Ł": r"\L{}",
    "ı": r"\i{}",
    "¿": r"?`",
    "¡": r"!`",
    "§": r"\S{}",
    "¶": r"\P{}",
    "©": r"\copyright{}",
    "£": r"\pounds{}",
}

#: Combining accents with an OT1 accent command: an accented letter is its
#: base letter under the command.
_ACCENTS = {
    "\u0300": "\\`",
    "\u0301": "\\'",
    "\u0302": "\\^",
    "\u0303": "\\~",
    "\u0304": "\\=",
    "\u0306": "\\u",
    "\u0307": "\\.",
    "\u0308": '\\"',
    "\u030a": "\\r",
    "\u030b": "\\H",
    "\u030c": "\\v",
    "\u0327": "\\c",
}


def _code_point(ch: str) -> str:
    return f"\\texttt{{[U+{ord(ch):04X}]}}"


def _non_ascii(ch: str) -> str:
    if ch in _SIGNS:
        return _SIGNS[ch]
    parts = unicodedata.normalize("NFKD", ch)
    if parts != ch and parts.isascii():
        return text(parts)  # a compatibility form: fullwidth ``＝``, the ligature ``ﬁ``
    base, marks = parts[:1], parts[1:]
    if parts != ch and base.isascii() and marks and all(m in _ACCENTS for m in marks):
        out = f"\\{base}" if base in "ij" else text(base)  # dotless under an accent
        for mark in marks:
            out = f"{_ACCENTS[mark]}{{{out}}}"
        return out
    return _code_point(ch)


def text(value: object) -> str:
    """``value`` as LaTeX text (not math) that typesets as written, in ASCII."""
    s = one_line(str(value))
    out = []
    for i, ch in enumerate(s):
        if ch in _ASCII:
            out.append(_ASCII[ch])
        elif ch == "-" and s[i + 1 : i + 2] == "-":
            out.append("-{}")  # "--" and "---" would print as dashes
        elif ch.isascii():
            out.append(ch)
        else:
            out.append(_non_ascii(ch))
    return "".join(out)
