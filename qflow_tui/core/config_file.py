"""Reading the config file, and the error every bad setting raises: below the
model clients, whose price table reads the same file."""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .safe_text import one_line

if TYPE_CHECKING:
    from tomlkit import TOMLDocument


class ConfigError(ValueError):
    """A setting with a wrong value; the message names the setting and the file."""


#: A config file larger than this is not one (a few settings take a few hundred
#: bytes); reading stops there instead of reading what may never end.
MAX_CONFIG_BYTES = 1024 * 1024


def read_config_text(path: Path) -> str | None:
    """The text of the config file ``path``; None when there is none. Only a
    regular file is read, and at most :data:`MAX_CONFIG_BYTES`: a folder, a
    device (a link to /dev/zero reads forever) or a pipe is refused. Raises
    :class:`ConfigError` naming the file and what to do."""
    fix = "fix it, delete it, or point QFLOW_CONFIG_DIR elsewhere"
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc}); {fix}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"{path}: is a folder, not a config file; remove it or point QFLOW_CONFIG_DIR elsewhere")
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"{path}: not a regular file (a device, pipe or socket); {fix}")
    try:
        # O_NONBLOCK: should it have become a FIFO since the check, the open does not wait.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise ConfigError(f"{path}: not a regular file (a device, pipe or socket); {fix}")
            data = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc}); {fix}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_CONFIG_BYTES // 1024} KB, not a qflow config file; {fix}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text; {fix}") from None


def parse_config(path: Path) -> dict[str, Any] | None:
    """The config file as TOML, or None when there is none; :class:`ConfigError`
    (one line) when it is not valid TOML."""
    text = read_config_text(path)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({one_line(str(exc))}); fix or delete the file") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML (nested too deeply); fix or delete the file") from None


def edit_config(path: Path, what: str, edit: Callable[[TOMLDocument, bool], None]) -> None:
    """Change the config file at ``path`` with ``edit(document, empty)`` and
    save it, keeping the rest as the user wrote it: comments, order and layout
    (tomlkit). ``empty``: the file held nothing. A file that is not valid TOML
    is left alone, and a file that cannot be written is said: ConfigError
    naming ``what`` was being saved."""
    # tomlkit loads only when a setting is saved: importing it took 0.7-1.0 s
    # here (python -X importtime, a busy machine), and most runs save nothing.
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    text = read_config_text(path) or ""
    try:
        doc = tomlkit.parse(text) if text else tomlkit.document()
    except (TOMLKitError, RecursionError) as exc:
        why = f"{path}: not valid TOML ({one_line(str(exc))}); not saving {what} there, fix or delete the file"
        raise ConfigError(why) from None
    edit(doc, not text.strip())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(tomlkit.dumps(doc), encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot save {what} there ({exc.strerror or exc})") from None
