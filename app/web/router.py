"""Serves the browser client: `/` is the page, `/static/...` its modules, styles and icons,
`/static/kit/...` the client kit's modules.

No build step: the files under `static/` are what the browser runs (plain ES modules). The
connection, the table model, the replay's steps and hand verification are the client kit's
(the npm package in `clients/js/`, docs/architecture.md): the page imports them from
`/static/kit/`, served from `clients/js/src/` as they are, so there is one copy of each.
Only files inside those folders with a known type are served; anything else is `not_found`.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

from app.api.errors import ApiError
from app.web import players

STATIC = Path(__file__).parent / "static"
# beside `app/` in the source tree and in the image (the Dockerfile copies it there)
KIT = Path(__file__).resolve().parents[2] / "clients" / "js" / "src"
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


@router.get("/static/kit/{path:path}", include_in_schema=False)
def kit(path: str) -> FileResponse:
    """A module of the client kit (`not_found` outside its `src/` or of an unknown type)."""
    return _file(KIT, path)


@router.get("/static/{path:path}", include_in_schema=False)
def static(path: str) -> FileResponse:
    """A file of the client (`not_found` outside the static folder or of an unknown type)."""
    return _file(STATIC, path)


def _file(folder: Path, path: str) -> FileResponse:
    root = folder.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root) or not target.is_file() or target.suffix not in TYPES:
        raise ApiError("not_found", f"no file {path!r}")
    return FileResponse(target, media_type=TYPES[target.suffix], headers=NO_CACHE)
