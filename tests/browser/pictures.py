"""The README's pictures of the table, mid-hand, in Chinese: on a phone (390x844) and a
desktop (1366x900). Starts a live server with bots over a temporary SQLite file (as the
browser tests do), plays a few discards of a 丽水 hand at each size and writes
docs/pictures/table-phone.png and docs/pictures/table-desktop.png.

    python -m tests.browser.pictures            # TEST_CHROMIUM names chromium if not /usr/bin/chromium
"""

from __future__ import annotations

import os
import struct
import sys
import tempfile
import zlib
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright

from tests.browser.conftest import CHROMIUM_ARGS, DEFAULT_CHROMIUM
from tests.browser.ui import LEGAL, PROMPTED, SETTLED, answer_once, discard, open_table, register
from tests.live import live_server, sqlite_settings

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "pictures"
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1366, "height": 900}}
DISCARDS = 4  # the player's own discards before the picture: the rivers fill a little


def _mid_hand(page: Page) -> None:
    """Play the player's turns (passing on claims) until it has discarded DISCARDS times in
    one hand; a hand that ends first is closed and the next one played."""
    done = 0
    while True:
        page.wait_for_selector(f"{SETTLED}, {PROMPTED}", timeout=60_000)
        if page.query_selector(SETTLED):
            page.click("#settle-ready")  # the next hand at once: the bots are ready
            done = 0
        elif page.query_selector('#actions button.act[data-action="pass"]'):
            page.click('#actions button.act[data-action="pass"]')  # stay in the hand
        elif page.query_selector(LEGAL):
            if done == DISCARDS:
                break  # the player's turn, its hand whole and the prompt up: the picture
            before = page.eval_on_selector_all("#seat-0 .discards .tile", "els => els.length")
            discard(page)
            page.wait_for_function(
                "n => document.querySelectorAll('#seat-0 .discards .tile').length > n", arg=before)
            done += 1
        else:
            answer_once(page)
        page.wait_for_timeout(50)  # the page redraws after a click
    page.mouse.move(0, 0)


def _unfilter(raw: bytes, width: int, height: int, bpp: int) -> list[bytes]:
    """The rows of a PNG's decompressed image data, each filter undone (PNG spec, 9.2)."""
    stride = width * bpp
    prev = bytearray(stride)
    rows: list[bytes] = []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return rows


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _recompress(path: Path) -> None:
    """Rewrite Chromium's PNG losslessly, a third smaller: rows unfiltered, zlib at level 9
    (flat colours and text compress better so than with Chromium's fast settings)."""
    data = path.read_bytes()
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (size,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + size]
        pos += 12 + size
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    if depth != 8 or colour not in (2, 6) or header[12] != 0:
        return  # not 8-bit RGB(A), or interlaced: leave it as it is
    bpp = 3 if colour == 2 else 4
    rows = _unfilter(zlib.decompress(idat), width, height, bpp)
    packed = zlib.compress(b"".join(b"\0" + row for row in rows), 9)
    if len(packed) < len(idat):
        path.write_bytes(data[:8] + _chunk(b"IHDR", header) + _chunk(b"IDAT", packed)
                         + _chunk(b"IEND", b""))


def _picture(browser: Browser, base: str, name: str) -> Path:
    context = browser.new_context(viewport=SIZES[name], locale="zh-CN")  # type: ignore[arg-type]
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        register(page, base, f"阿明{name}"[:16])
        open_table(page, "lishui", 10)
        page.click("#fill-bots")
        _mid_hand(page)
        path = OUT / f"table-{name}.png"
        page.screenshot(path=str(path))
        _recompress(path)
        return path
    finally:
        context.close()


def main() -> int:
    chromium = os.environ.get("TEST_CHROMIUM", DEFAULT_CHROMIUM)
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, live_server(
        sqlite_settings(Path(tmp) / "pictures.db", test_mode=True)
    ) as (port, _), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        try:
            for name in SIZES:
                path = _picture(browser, f"http://127.0.0.1:{port}", name)
                print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KB")
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
