"""The client's files as the server sends them: each read once per content, with its digest
(the strong ETag and the `?v=` version the page's URLs carry) and, for text, its gzip.

A file is read again only when its size or modification time changes (one `stat` a
request), so a release is seen at once and a developer's edit too; what is kept is bounded:
the files of the served folders with a known type, each at most `MAX_KEPT` bytes (a larger
one is read for each request and sent as it is).
"""

from __future__ import annotations

import gzip
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from app.api.errors import ApiError

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}
MAX_KEPT = 1 << 20
VERSION_LENGTH = 16  # hex digits of the SHA-256 in a `?v=`: 64 bits, no collision in practice


@dataclass(frozen=True)
class Asset:
    """One file's content as read, its digest and its gzip (None: not worth it)."""

    body: bytes
    gzipped: bytes | None
    digest: str
    media_type: str

    @property
    def version(self) -> str:
        return self.digest[:VERSION_LENGTH]

    def etag(self, gzipped: bool) -> str:
        """Strong, and distinct per content coding (RFC 9110 8.8.3)."""
        return f'"{self.digest[:32]}{"-gz" if gzipped else ""}"'


def make_asset(body: bytes, media_type: str) -> Asset:
    """`body` with its digest and its gzip (every type served is text), kept only when it
    saves a tenth or more."""
    packed = gzip.compress(body, compresslevel=9, mtime=0)
    worth = len(packed) < len(body) * 0.9
    return Asset(body, packed if worth else None, hashlib.sha256(body).hexdigest(), media_type)


class Folder:
    """The servable files of one folder, read on demand and kept while unchanged."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._kept: dict[Path, tuple[tuple[int, int], Asset]] = {}

    def get(self, path: str) -> Asset:
        """The file at `path` inside the folder (`not_found` outside it, missing, or of an
        unknown type)."""
        target = (self.root / path).resolve()
        if not target.is_relative_to(self.root) or target.suffix not in TYPES:
            raise ApiError("not_found", f"no file {path!r}")
        try:
            status = target.stat()
        except OSError:
            raise ApiError("not_found", f"no file {path!r}") from None
        if not target.is_file():
            raise ApiError("not_found", f"no file {path!r}")
        stamp = (status.st_mtime_ns, status.st_size)
        kept = self._kept.get(target)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        asset = make_asset(target.read_bytes(), TYPES[target.suffix])
        if status.st_size <= MAX_KEPT:
            self._kept[target] = (stamp, asset)  # one entry per file: replaced, never added to
        return asset

    def modules(self) -> list[str]:
        """The folder's ES modules, as paths relative to it."""
        return sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob("*.js"))


IMPORTED = re.compile(r"""(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}/[^"']+)["']""")


def imports_of(source: bytes) -> list[str]:
    """The relative specifiers a module imports (static, re-exported or dynamic)."""
    return IMPORTED.findall(source.decode("utf-8", "replace"))


def accepts_gzip(header: str | None) -> bool:
    """Whether an Accept-Encoding header takes gzip (`gzip;q=0` refuses it)."""
    for part in (header or "").lower().split(","):
        name, _, params = part.strip().partition(";")
        if name.strip() not in ("gzip", "*"):
            continue
        quality = params.strip().removeprefix("q=")
        try:
            return not params.strip().startswith("q=") or float(quality) > 0
        except ValueError:
            return False
    return False


def matches(if_none_match: str | None, etag: str) -> bool:
    """If-None-Match's weak comparison (RFC 9110 13.1.2): `*`, or one of its tags."""
    if not if_none_match:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in tags or etag in tags
