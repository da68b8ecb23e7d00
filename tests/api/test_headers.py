"""Security headers on every page and answer (app/api/headers.py), and the API docs that an
operator can keep off the public port (setting `api_docs`)."""

from __future__ import annotations

import base64
import hashlib
import re

import httpx

from app.main import create_app
from app.settings import Settings
from tests.api.helpers import assert_error


async def test_every_answer_carries_the_security_headers(client: httpx.AsyncClient) -> None:
    for path in ("/", "/static/js/app.js", "/health", "/variants", "/me", "/static/nope.js"):
        answer = await client.get(path)
        assert answer.headers["x-content-type-options"] == "nosniff", path
        assert answer.headers["x-frame-options"] == "DENY", path
        assert answer.headers["referrer-policy"] == "no-referrer", path
        policy = answer.headers["content-security-policy"]
        assert policy.count("content-security-policy") == 0  # one policy, not two
        # only this origin's own files run: no eval, no other site, nothing inline...
        assert "unsafe" not in policy and "frame-ancestors 'none'" in policy, path
        if path != "/":
            assert "script-src 'self';" in policy, path
    # ... but the page's import map (its modules' versioned URLs), allowed by its hash
    page = await client.get("/")
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page.text, re.DOTALL)
    inline = [body for attrs, body in scripts if "src=" not in attrs]
    assert [attrs for attrs, body in scripts if body] == [' type="importmap"']
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    assert f"script-src 'self' 'sha256-{digest}';" in page.headers["content-security-policy"]
    assert "style=" not in page.text


async def test_the_docs_pages_get_a_policy_that_lets_them_load(client: httpx.AsyncClient) -> None:
    docs = await client.get("/docs")
    assert docs.status_code == 200
    policy = docs.headers["content-security-policy"]
    assert "https://cdn.jsdelivr.net" in policy and "frame-ancestors 'none'" in policy


async def test_the_api_docs_can_be_turned_off(settings: Settings) -> None:
    app = create_app(settings.model_copy(update={"api_docs": False}))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        for path in ("/docs", "/redoc", "/openapi.json"):
            assert_error(await http.get(path), 404, "not_found")
        assert (await http.get("/variants")).status_code == 200
