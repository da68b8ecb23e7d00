"""The client's page as sent: index.html with every file it names carrying its version
(`?v=<digest>`), an import map giving each ES module's plain URL its versioned one, and a
`modulepreload` per module the page imports, so that the browser asks for the whole module
graph at once instead of one level of imports per round trip.

The import map is the page's one inline script: the page's Content-Security-Policy allows it
by its SHA-256 and nothing else inline (docs/architecture.md, "The client's files").
"""

from __future__ import annotations

import base64
import hashlib
import json
import posixpath
import re
from dataclasses import dataclass

from app.api.errors import ApiError
from app.api.headers import page_policy
from app.web.assets import TYPES, Asset, Folder, imports_of, make_asset

ENTRY = "/static/js/app.js"
NAMED = re.compile(r'(href|src)="(/static/[^"?#]+)"')
MODULE_SCRIPT = '<script type="module"'


@dataclass(frozen=True)
class Page:
    asset: Asset  # the page as sent, its digest its ETag
    policy: str  # its Content-Security-Policy


class Site:
    """The served folders by URL prefix, and the page built from their current versions."""

    def __init__(self, folders: dict[str, Folder], template: str) -> None:
        self.folders = folders
        self.template = template
        self._page: tuple[tuple[str, ...], Page] | None = None

    def asset(self, url: str) -> Asset | None:
        for prefix, folder in self.folders.items():
            if url.startswith(prefix):
                try:
                    return folder.get(url.removeprefix(prefix))
                except ApiError:  # a name in the page that is no file stays as it is
                    return None
        return None

    def page(self) -> Page:
        """The page for the files as they are now (built again when one of them changed)."""
        versions = {
            prefix + name: asset.version
            for prefix, folder in self.folders.items()
            for name in folder.modules()
            if (asset := self.asset(prefix + name)) is not None
        }
        template = self.folders["/static/"].get(self.template)
        key = (template.digest, *(f"{url}={v}" for url, v in sorted(versions.items())))
        if self._page is None or self._page[0] != key:
            self._page = (key, self._build(template.body.decode("utf-8"), versions))
        return self._page[1]

    def _build(self, html: str, versions: dict[str, str]) -> Page:
        def versioned(match: re.Match[str]) -> str:
            url = match.group(2)
            asset = self.asset(url)
            return f'{match.group(1)}="{url}?v={asset.version}"' if asset else match.group(0)

        imports = json.dumps(
            {"imports": {url: f"{url}?v={v}" for url, v in sorted(versions.items())}},
            separators=(",", ":"),
        )
        digest = base64.b64encode(hashlib.sha256(imports.encode()).digest()).decode()
        preloads = "".join(
            f'  <link rel="modulepreload" href="{url}?v={versions[url]}">\n'
            for url in self._graph(ENTRY) if url != ENTRY and url in versions
        )
        head = f'<script type="importmap">{imports}</script>\n{preloads}  {MODULE_SCRIPT}'
        html = NAMED.sub(versioned, html).replace(MODULE_SCRIPT, head, 1)
        return Page(make_asset(html.encode(), TYPES[".html"]), page_policy(script_hashes=(f"sha256-{digest}",)))

    def _graph(self, entry: str) -> list[str]:
        """The modules `entry` imports, directly or not, in the order first met."""
        seen = [entry]
        for url in seen:
            asset = self.asset(url)
            for spec in imports_of(asset.body) if asset else ():
                found = posixpath.normpath(posixpath.join(posixpath.dirname(url), spec))
                if found not in seen:
                    seen.append(found)
        return seen
