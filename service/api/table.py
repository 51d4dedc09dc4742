"""The table view (clients/table): the page a browser gets at /table/ and
/table/{encounter_id}, and its assets under /table/assets/. The page is the front end any
table can open, `#token=<token>` in its URL (a fragment, so the token never reaches a
server, nor its logs); it talks to Fray through the TypeScript client, from this origin.

The assets are built by Vite from clients/table and committed (service/api/static/table/
assets/): `make table` rebuilds them, and tests/api/test_table.py fails when they are not
what the sources and the lock file build. Served as GraphiQL's are (service.api.graphiql):
a digest in each asset's URL, cached for a year, and a policy that loads nothing but Fray."""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from service.api.graphiql import CSP, IMMUTABLE, Asset, read_assets, render_page

STATIC = files("service.api") / "static" / "table"
PREFIX = "/table/assets"
# Each asset by the name page.html gives it, and its file under STATIC.
FILES = {"table_js": "assets/table.js", "table_css": "assets/table.css"}


@cache
def assets() -> dict[str, Asset]:
    return read_assets(STATIC, FILES)


@cache
def page() -> str:
    return render_page(STATIC, assets(), PREFIX)


async def table_page(request: Request) -> HTMLResponse:
    # One page for every encounter: the script reads the id from the path and the token
    # from the fragment. The page names the current assets, so it is revalidated each time.
    headers = {
        "Content-Security-Policy": CSP,
        "Cache-Control": "no-cache",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
    }
    return HTMLResponse(page(), headers=headers)


async def table_asset(request: Request) -> Response:
    by_name = {a.name: a for a in assets().values()}
    found = by_name.get(request.path_params["name"])
    if found is None or request.path_params["digest"] != found.digest:
        raise HTTPException(404, "No such table asset (the page names the current ones)")
    headers = {"Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff"}
    return Response(found.body, media_type=found.media_type, headers=headers)


routes: list[BaseRoute] = [
    Route(PREFIX + "/{digest}/{name}", table_asset, methods=["GET"]),
    Route("/table/", table_page, methods=["GET"]),
    Route("/table/{encounter_id}", table_page, methods=["GET"]),
]
