"""The shell every qflow page shares: one HTML document with its styles and
script inline, a Content-Security-Policy that lets the page fetch nothing and
run no script but its own (by hash), and code highlighted as the app
highlights it (pygments, the app's light and dark syntax themes)."""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib import resources

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import DiffLexer, PythonLexer, TextLexer

from ..escape import htmltext as h

#: The app's syntax themes (ui/palette.py: ``qf-syntax-theme``), light then dark.
LIGHT_THEME = "friendly"
DARK_THEME = "monokai"

_LEXERS = {"python": PythonLexer, "diff": DiffLexer, "text": TextLexer}


def asset(name: str) -> str:
    """A file shipped beside this module (the stylesheet, the scripts)."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


@cache
def _highlight_css() -> str:
    light = HtmlFormatter(style=LIGHT_THEME).get_style_defs(".hl")  # type: ignore[no-untyped-call]
    dark = HtmlFormatter(style=DARK_THEME).get_style_defs(".hl")  # type: ignore[no-untyped-call]
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"


def code(source: str, lang: str = "python") -> str:
    """``source`` as a highlighted ``<pre>``; pygments escapes every character it writes."""
    lexer = _LEXERS.get(lang, TextLexer)(stripnl=False, ensurenl=False)
    body = highlight(source, lexer, HtmlFormatter(nowrap=True))
    return f'<pre class="hl {h.text(lang)}"><code>{body}</code></pre>'


def _csp(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    scripts = f"'sha256-{digest}'" if script else "'none'"
    return (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src {scripts}; img-src data:; "
        "connect-src 'none'; form-action 'none'; base-uri 'none'"
    )


def document(title: str, body: str, script: str = "", data: str = "", after: str = "") -> str:
    """A whole page: ``title`` is outside text (escaped here), ``body`` HTML
    already escaped, ``script`` qflow's own JavaScript (allowed by its hash),
    ``data`` the text of a ``<script type="application/json" id="page-data">``
    (already through :func:`~qflow_tui.core.escape.htmltext.script_json`);
    ``after`` inert data after the script (embedded sessions: the page works
    before the browser has read them)."""
    css = asset("page.css") + _highlight_css()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{h.text(_csp(script))}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{h.text(title)}</title>",
        f"<style>{css}</style>",
        "</head>",
        "<body>",
        f"<main>{body}</main>",
    ]
    if data:
        parts.append(f'<script type="application/json" id="page-data">{data}</script>')
    if script:
        parts.append(f"<script>{script}</script>")
    if after:
        parts.append(after)
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)
