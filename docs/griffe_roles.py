"""A Griffe extension for the API reference (docs/reference/api.md): the
docstrings name other objects in Sphinx's roles (:class:`Setting`, which
``help()`` shows as written); the reference shows each such name as code."""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|meth|attr|func|data|mod|obj|exc):`~?([^`]+)`")


class Roles(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"`\1`", obj.docstring.value)
