"""GraphiQL, served by Fray from its own origin: the page a browser gets at GET /graphql,
and its assets under /graphql/assets/. React, ReactDOM and GraphiQL are vendored from npm
(service/api/static/graphiql/vendor/README.md), so the page works offline, and its
Content-Security-Policy lets it load and connect to nothing but Fray.

An asset's URL carries a digest of its contents, so it can be cached for a year: a new
file is a new URL, and an old URL is a 404."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from string import Template

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

STATIC = files("service.api") / "static" / "graphiql"
# Each asset by the name page.html gives it, and where it lives under STATIC.
FILES = {
    "graphiql_css": "vendor/graphiql.min.css",
    "fray_css": "fray-graphiql.css",
    "react": "vendor/react.production.min.js",
    "react_dom": "vendor/react-dom.production.min.js",
    "graphiql_js": "vendor/graphiql.min.js",
    "fray_js": "fray-graphiql.js",
}
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css"}
IMMUTABLE = "public, max-age=31536000, immutable"
# GraphiQL's fonts and icons are data: URLs in its stylesheet; its websocket goes to this
# origin ('self' covers ws: and wss: to the page's host).
CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)


@dataclass(frozen=True)
class Asset:
    name: str
    body: bytes
    media_type: str

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.body).hexdigest()[:16]

    def url(self, prefix: str) -> str:
        return f"{prefix}/{self.digest}/{self.name}"


def read_assets(static: Traversable, paths: Mapping[str, str]) -> dict[str, Asset]:
    """The assets under `static` by the page's names for them (`paths`: name -> file)."""
    found: dict[str, Asset] = {}
    for key, path in paths.items():
        name = path.rpartition("/")[2]
        media_type = MEDIA_TYPES[name[name.rindex(".") :]]
        found[key] = Asset(name, (static / path).read_bytes(), media_type)
    return found


def render_page(static: Traversable, found: Mapping[str, Asset], prefix: str) -> str:
    """`static`'s page.html, each asset's name replaced by its URL under `prefix`."""
    template = Template((static / "page.html").read_text(encoding="utf-8"))
    return template.substitute({key: asset.url(prefix) for key, asset in found.items()})


@cache
def assets() -> dict[str, Asset]:
    """The assets by the page's names for them, read once."""
    return read_assets(STATIC, FILES)


@cache
def page(prefix: str) -> str:
    """The HTML page, its assets under `prefix`."""
    return render_page(STATIC, assets(), prefix)


def page_response(prefix: str) -> HTMLResponse:
    # The page itself is small and names the current assets: revalidated every time.
    headers = {"Content-Security-Policy": CSP, "Cache-Control": "no-cache"}
    return HTMLResponse(page(prefix), headers=headers)


async def asset(request: Request) -> Response:
    by_name = {a.name: a for a in assets().values()}
    found = by_name.get(request.path_params["name"])
    if found is None or request.path_params["digest"] != found.digest:
        raise HTTPException(404, "No such GraphiQL asset (the page names the current ones)")
    headers = {"Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff"}
    return Response(found.body, media_type=found.media_type, headers=headers)


def asset_route(prefix: str) -> Route:
    return Route(prefix + "/{digest}/{name}", asset)
