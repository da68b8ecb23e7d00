"""Security headers on every HTTP answer (a pure ASGI middleware: bodies and WebSockets pass
through untouched).

Rules:
- every answer says `X-Content-Type-Options: nosniff` (a file is only what its type says),
  `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'` (no page may frame ours:
  clickjacking), `Referrer-Policy: no-referrer` and `Cross-Origin-Opener-Policy:
  same-origin`;
- the Content-Security-Policy lets a page run only this origin's own files: no inline
  script or style, no `eval`, no plugin, no other site's script, image or connection (the
  browser client is plain ES modules under /static and passes it; tests/browser checks
  that the browser reports no violation);
- the client's page has one inline script, its import map, which its policy allows by its
  SHA-256 (`page_policy`, app/web/page.py); an answer that brings its own policy keeps it
  and gets the other headers;
- the API docs pages (`/docs`, `/redoc`) load FastAPI's Swagger UI and ReDoc from their
  CDN with an inline start-up script, so they get a policy that allows exactly that;
  operators can keep them off (setting `api_docs`);
- Strict-Transport-Security is not set here: TLS ends at the operator's proxy, which
  must set it.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

PAGE_POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",  # REST and the same-origin WebSocket
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
)
CDN = "https://cdn.jsdelivr.net"
DOCS_POLICY = (
    "default-src 'self'",
    f"script-src 'self' 'unsafe-inline' {CDN}",
    f"style-src 'self' 'unsafe-inline' {CDN} https://fonts.googleapis.com",
    "font-src https://fonts.gstatic.com",
    "img-src 'self' data: https://fastapi.tiangolo.com",
    "worker-src 'self' blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
)
CSP = "; ".join(PAGE_POLICY)


def page_policy(script_hashes: tuple[str, ...]) -> str:
    """The page policy with inline scripts of exactly these hashes (`sha256-<base64>`)
    allowed, and nothing else inline."""
    allowed = " ".join(f"'{h}'" for h in script_hashes)
    return "; ".join(
        f"script-src 'self' {allowed}" if p == "script-src 'self'" else p for p in PAGE_POLICY
    )


DOCS_CSP = "; ".join(DOCS_POLICY)
DOCS_PATHS = frozenset({"/docs", "/redoc", "/docs/oauth2-redirect"})

_COMMON: list[tuple[bytes, bytes]] = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
_PAGE = [*_COMMON, (b"content-security-policy", CSP.encode())]
_DOCS = [*_COMMON, (b"content-security-policy", DOCS_CSP.encode())]


class SecurityHeaders:
    """Adds the headers above to the start of every HTTP response of `app`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = _DOCS if scope["path"] in DOCS_PATHS else _PAGE

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                own = any(name.lower() == b"content-security-policy" for name, _ in headers)
                message["headers"] = [*headers, *(_COMMON if own else extra)]
            await send(message)

        await self.app(scope, receive, send_with_headers)
