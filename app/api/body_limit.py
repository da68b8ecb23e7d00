"""Request body sizes at the edge: a pure ASGI middleware that refuses a body larger than
`max_body_bytes` (app/settings.py) before the app parses it.

Rules:
- a request whose Content-Length is over the limit is answered at once, before anything
  of its body is read: 413 with the error shape (`too_large`, `details.max_bytes`);
- a body without a Content-Length (chunked) is counted as it streams in, and refused the
  same way as soon as it passes the limit: what the app has read of it is dropped and
  whatever the app answers instead is not sent;
- the 413 carries `Connection: close`: the server stops reading the connection rather
  than draining the rest of the body;
- a body of exactly the limit is read as usual; WebSocket frames have their own limit
  (uvicorn's `ws_max_size`, app/ops/serve.py).

The largest body the server accepts for a real use is an admin test-mode table with its
arranged hands and draws (app/api/admin_tables.py), well under 2 KB.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.errors import error_response


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            return int(value) if value.isdigit() else None  # uvicorn refuses a malformed one
    return None


class BodyLimit:
    """The middleware: see the module's rules."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(
            "too_large",
            f"the request body is larger than {self.max_bytes} bytes",
            details={"max_bytes": self.max_bytes},
            headers={"Connection": "close"},
        )
        await response(scope, receive, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _declared_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(scope, receive, send)
            return
        received = 0
        refused = False
        started = False

        async def counted_receive() -> Message:
            nonlocal received, refused
            message = await receive()
            if message["type"] == "http.request" and not refused:
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    refused = True
                    if not started:
                        await self._refuse(scope, receive, send)
                    return {"type": "http.disconnect"}  # the app stops reading
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 went out instead
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, counted_receive, guarded_send)
