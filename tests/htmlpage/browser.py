"""Debian's chromium, headless, as the tests' real browser: load a page from
disk with every host name unresolvable, and give back the rendered DOM and
every console message (an uncaught error, a refused script or fetch)."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Debian's chromium is not installed (apt-get install chromium; .ci/run installs it)",
)

#: Attributes whose URL a browser fetches (or follows on a click).
URL_ATTRIBUTES = {"src", "href", "action", "srcset", "poster", "data", "xlink:href", "formaction", "background"}
#: A CSS url() naming another host.
CSS_URL = re.compile(r"url\(\s*[\"']?\s*(?:https?:|//)", re.I)


class _Urls(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.tags: list[str] = []
        self.handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name.startswith("on"):
                self.handlers.append(f"<{tag} {name}={value}>")
            v = (value or "").strip().lower()
            if name in URL_ATTRIBUTES and v.startswith(("http:", "https:", "//")):
                self.found.append(f"<{tag} {name}={value}>")
            if name == "style" and CSS_URL.search(v):
                self.found.append(f"<{tag} style={value}>")


@dataclass
class Loaded:
    dom: str
    console: list[str]


def load(page: Path, tmp: Path, fragment: str = "", budget_ms: int = 5000) -> Loaded:
    """``page`` as chromium renders it (after ``budget_ms`` of virtual time,
    so the page's promises settle), with its console messages."""
    assert CHROMIUM is not None
    profile = tmp / f"chromium-profile-{len(list(tmp.glob('chromium-profile-*')))}"
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            f"--user-data-dir={profile}",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr",
            "--v=0",
            f"--virtual-time-budget={budget_ms}",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    assert done.returncode == 0, done.stderr[-2000:]
    return Loaded(done.stdout, console)


def tags_and_urls(html: str) -> tuple[list[str], list[str]]:
    """Every element's tag, in order, and every URL to another host in an attribute."""
    parser = _Urls()
    parser.feed(html)
    return parser.tags, parser.found


def event_handlers(html: str) -> list[str]:
    """Every element's ``on...`` attribute (the page itself sets none)."""
    parser = _Urls()
    parser.feed(html)
    return parser.handlers


def assert_fetches_nothing(html: str) -> None:
    """No URL to another host in the page, none in its styles, and a policy that refuses any fetch."""
    assert tags_and_urls(html)[1] == []
    for style in re.findall(r"<style>(.*?)</style>", html, re.S):
        assert not CSS_URL.search(style)
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html)
    assert policy is not None
    assert "default-src 'none'" in unescape(policy.group(1)) and "connect-src 'none'" in unescape(policy.group(1))
