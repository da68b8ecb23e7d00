"""Serves the browser client: `/` is the page, `/static/...` its modules, styles and icons.

No build step: the files under `static/` are what the browser runs (plain ES modules). Only
files inside that folder with a known type are served; anything else is `not_found`.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

from app.api.errors import ApiError
from app.web import players

STATIC = Path(__file__).parent / "static"
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}
NO_CACHE = {"Cache-Control": "no-cache"}  # revalidate: a new release is seen at once

router = APIRouter()
router.include_router(players.router)


@router.get("/", include_in_schema=False)
def index() -> FileResponse:
    """The client's one page."""
    return FileResponse(STATIC / "index.html", media_type=TYPES[".html"], headers=NO_CACHE)


@router.get("/static/{path:path}", include_in_schema=False)
def static(path: str) -> FileResponse:
    """A file of the client (`not_found` outside the static folder or of an unknown type)."""
    root = STATIC.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root) or not target.is_file() or target.suffix not in TYPES:
        raise ApiError("not_found", f"no file {path!r}")
    return FileResponse(target, media_type=TYPES[target.suffix], headers=NO_CACHE)
