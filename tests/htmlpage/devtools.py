"""Headless chromium driven over the DevTools protocol: a page loaded, keys
pressed as a keyboard presses them, and every console error and uncaught
exception collected, for the tests of what a reader does on a page."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import websockets

from tests.htmlpage.browser import CHROMIUM


class Browser:
    """One chromium with one page open at ``url``; ``errors`` gathers what its console said."""

    def __init__(self, proc: subprocess.Popen[str], ws: Any) -> None:
        self.proc = proc
        self.ws = ws
        self.ids = itertools.count(1)
        self.errors: list[str] = []

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        n = next(self.ids)
        await self.ws.send(json.dumps({"id": n, "method": method, "params": params}))
        while True:
            msg = json.loads(await asyncio.wait_for(self.ws.recv(), 60))
            if msg.get("id") == n:
                assert "error" not in msg, msg
                return msg.get("result", {})
            self._event(msg)

    def _event(self, msg: dict[str, Any]) -> None:
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.exceptionThrown":
            self.errors.append(json.dumps(params.get("exceptionDetails", {}))[:500])
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
            self.errors.append(json.dumps(params.get("args", []))[:500])
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
            self.errors.append(params["entry"].get("text", "")[:500])

    async def js(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    async def until(self, expression: str, within: float = 60) -> Any:
        """Wait until ``expression`` is truthy in the page (a condition, never a fixed sleep)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            value = await self.js(expression)
            if value:
                return value
            await asyncio.sleep(0.05)
        raise AssertionError(f"never true: {expression}")

    async def key(self, key: str, code: str, keycode: int) -> None:
        """A key pressed and released, as the keyboard sends it."""
        base = {"key": key, "code": code, "windowsVirtualKeyCode": keycode}
        await self.send("Input.dispatchKeyEvent", type="keyDown", **base, text="\r" if key == "Enter" else "")
        await self.send("Input.dispatchKeyEvent", type="keyUp", **base)


def _start(profile: Path) -> tuple[subprocess.Popen[str], list[dict[str, Any]]]:
    """A headless chromium with its DevTools port open, and its page targets."""
    assert CHROMIUM is not None
    proc = subprocess.Popen(
        [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
         f"--user-data-dir={profile}", "--host-resolver-rules=MAP * ~NOTFOUND", "--remote-debugging-port=0",
         "--remote-allow-origins=*", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    port = None
    for line in proc.stderr:  # chromium says where it listens before anything else matters
        m = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
        if m:
            port = m.group(1)
            break
    assert port is not None, "chromium did not open its DevTools port"
    threading.Thread(target=proc.stderr.read, daemon=True).start()  # a full pipe would stall chromium
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=60) as r:
        targets = [t for t in json.load(r) if t.get("type") == "page"]
    return proc, targets


async def open_page(url: str, profile: Path) -> Browser:
    proc, targets = await asyncio.to_thread(_start, profile)
    ws = await websockets.connect(targets[0]["webSocketDebuggerUrl"], max_size=None)
    browser = Browser(proc, ws)
    for domain in ("Runtime", "Log", "Page"):
        await browser.send(f"{domain}.enable")
    await browser.send("Page.navigate", url=url)
    await browser.until("document.readyState === 'complete' && location.href !== 'about:blank'")
    return browser


async def close(browser: Browser) -> None:
    await browser.ws.close()
    browser.proc.terminate()
    try:
        browser.proc.wait(30)
    except subprocess.TimeoutExpired:
        browser.proc.kill()
        browser.proc.wait()
