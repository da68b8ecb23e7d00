"""Serves the browser client: `/` is the page, `/static/...` its modules, styles and icons,
`/static/kit/...` the client kit's modules.

No build step: the files under `static/` are what the browser runs (plain ES modules). The
connection, the table model, the replay's steps and hand verification are the client kit's
(the npm package in `clients/js/`, docs/architecture.md): the page imports them from
`/static/kit/`, served from `clients/js/src/` as they are, so there is one copy of each.
Only files inside those folders with a known type are served; anything else is `not_found`.

Caching (docs/architecture.md, "The client's files"): every answer carries a strong ETag
of its content and a matching If-None-Match gets 304; text goes gzipped to a client that
takes it. The page is `no-cache` (revalidated each load) and names each file with its
version (`?v=<digest>`); a file asked for with its current version is `immutable` for a
year, any other URL of it (no version, an old one) `no-cache`.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.web import players
from app.web.assets import Asset, Folder, accepts_gzip, matches
from app.web.page import Site

STATIC = Path(__file__).parent / "static"
# beside `app/` in the source tree and in the image (the Dockerfile copies it there)
KIT = Path(__file__).resolve().parents[2] / "clients" / "js" / "src"
NO_CACHE = "no-cache"  # revalidate: a new release is seen at once
IMMUTABLE = "public, max-age=31536000, immutable"  # the URL names this content only

SITE = Site({"/static/kit/": Folder(KIT), "/static/": Folder(STATIC)}, "index.html")

router = APIRouter()
router.include_router(players.router)


@router.get("/", include_in_schema=False)
def index(request: Request) -> Response:
    """The client's one page."""
    page = SITE.page()
    return send(request, page.asset, NO_CACHE, {"Content-Security-Policy": page.policy})


@router.get("/r/{code}", include_in_schema=False)
def room_invite(code: str) -> Response:
    """A private room's invite link (邀请): the page opened on the room, which seats the
    visitor once signed in (after signing in or up if need be). Anything but six digits
    is `not_found`, as an unknown path."""
    if len(code) != 6 or not code.isdigit():
        return Response(status_code=404)
    return Response(status_code=303, headers={"Location": f"/#/room/{code}/join",
                                              "Cache-Control": NO_CACHE})


@router.get("/static/kit/{path:path}", include_in_schema=False)
def kit(path: str, request: Request) -> Response:
    """A module of the client kit (`not_found` outside its `src/` or of an unknown type)."""
    return send_file(request, SITE.folders["/static/kit/"].get(path))


@router.get("/static/{path:path}", include_in_schema=False)
def static(path: str, request: Request) -> Response:
    """A file of the client (`not_found` outside the static folder or of an unknown type)."""
    return send_file(request, SITE.folders["/static/"].get(path))


def send_file(request: Request, asset: Asset) -> Response:
    current = request.query_params.get("v") == asset.version
    return send(request, asset, IMMUTABLE if current else NO_CACHE)


def send(
    request: Request, asset: Asset, cache: str, extra: dict[str, str] | None = None
) -> Response:
    """`asset` as the request takes it: gzipped if it may be, 304 if it has it already."""
    packed = asset.gzipped is not None and accepts_gzip(request.headers.get("accept-encoding"))
    etag = asset.etag(packed)
    headers = {"ETag": etag, "Cache-Control": cache, "Vary": "Accept-Encoding", **(extra or {})}
    if matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    if packed:
        headers["Content-Encoding"] = "gzip"
    body = asset.gzipped if packed and asset.gzipped is not None else asset.body
    return Response(body, media_type=asset.media_type, headers=headers)
