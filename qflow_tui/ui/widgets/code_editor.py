"""A TextArea that highlights Python with Pygments.

Textual's own highlighting needs tree-sitter, which is an optional extra; Pygments
is already a dependency, so the tests editor highlights everywhere. Pygments
token types are mapped onto the highlight names TextArea themes style.
"""

from __future__ import annotations

from pygments.lexers import PythonLexer
from pygments.token import Token, _TokenType
from textual.widgets import TextArea

#: Pygments token type -> TextArea theme highlight name (most specific first).
_HIGHLIGHTS: tuple[tuple[_TokenType, str], ...] = (
    (Token.Keyword.Constant, "boolean"),
    (Token.Keyword, "keyword"),
    (Token.Operator.Word, "keyword.operator"),
    (Token.Operator, "operator"),
    (Token.Name.Builtin, "function.call"),
    (Token.Name.Function, "function"),
    (Token.Name.Class, "type.class"),
    (Token.Literal.String.Doc, "string.documentation"),
    (Token.Literal.String, "string"),
    (Token.Literal.Number, "number"),
    (Token.Comment, "comment"),
    (Token.Punctuation, "punctuation.bracket"),
)


def _highlight_name(token: _TokenType) -> str | None:
    for kind, name in _HIGHLIGHTS:
        if token in kind:
            return name
    return None


class PythonTextArea(TextArea):
    """An editable TextArea with Pygments-based Python highlighting."""

    _lexer = PythonLexer(stripnl=False, ensurenl=False)

    def _build_highlight_map(self) -> None:
        # TextArea calls this after every edit; re-lexing a test block is cheap.
        self._line_cache.clear()
        highlights = self._highlights
        highlights.clear()
        row, col = 0, 0  # col counts UTF-8 bytes, as TextArea's highlights do
        for token, value in self._lexer.get_tokens(self.text):
            name = _highlight_name(token)
            for i, piece in enumerate(value.split("\n")):
                if i:
                    row, col = row + 1, 0
                width = len(piece.encode("utf-8"))
                if name and width:
                    highlights[row].append((col, col + width, name))
                col += width
