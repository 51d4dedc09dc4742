"""GraphiQL as Fray serves it: the page at GET /graphql for a browser, every asset it names
served by Fray itself (vendored, service/api/static/graphiql/), nothing from another host.
tests/e2e/test_graphiql_browser.py runs it in a real browser."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.api.conftest import Api

pytestmark = pytest.mark.anyio

STATIC = Path(__file__).resolve().parents[2] / "service" / "api" / "static" / "graphiql"
HTML = {"Accept": "text/html"}
CONTENT_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
VENDORED = {
    "graphiql.min.js",
    "graphiql.min.css",
    "react.production.min.js",
    "react-dom.production.min.js",
}


class Links(HTMLParser):
    """Every URL the page loads: scripts' `src`, links' `href`."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href") and value is not None:
                self.urls.append(value)


def links(html: str) -> list[str]:
    parser = Links()
    parser.feed(html)
    return parser.urls


def source_of(url: str) -> Path:
    name = url.rpartition("/")[2]
    return STATIC / "vendor" / name if name in VENDORED else STATIC / name


async def test_a_browser_gets_graphiql_and_fray_serves_every_asset_it_names(api: Api):
    page = await api.client.get("/graphql", headers=HTML)

    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    urls = [url for url in links(page.text) if not url.startswith("data:")]
    names = {url.rpartition("/")[2] for url in urls}
    assert names == VENDORED | {"fray-graphiql.js", "fray-graphiql.css"}
    for url in urls:
        assert url.startswith("/graphql/assets/"), url
        asset = await api.client.get(url)
        assert asset.status_code == 200, url
        assert asset.headers["content-type"] == CONTENT_TYPES[Path(url).suffix], url
        assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert asset.content == source_of(url).read_bytes(), url


async def test_the_page_names_no_other_host(api: Api):
    page = await api.client.get("/graphql", headers=HTML)

    assert re.findall(r"https?://", page.text) == []
    assert [url for url in links(page.text) if url.startswith("//")] == []


async def test_the_pages_content_security_policy_allows_only_fray(api: Api):
    page = await api.client.get("/graphql", headers=HTML)

    policy = dict(
        d.strip().split(" ", 1) for d in page.headers["content-security-policy"].split(";")
    )
    assert policy["default-src"] == "'self'"
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"
    assert policy["connect-src"] == "'self'"
    # GraphiQL's fonts and icons are data: URLs inside its stylesheet, nothing else.
    assert policy["font-src"] == policy["img-src"] == "'self' data:"


async def test_the_page_says_how_to_give_the_authorization_header(api: Api):
    page = await api.client.get("/graphql", headers=HTML)
    script = (STATIC / "fray-graphiql.js").read_text()

    assert '<code>{"Authorization": "Bearer &lt;your token&gt;"}</code>' in page.text
    assert """'{\\n  "Authorization": "Bearer <your token>"\\n}'""" in script
    assert 'defaultEditorToolsVisibility: "headers"' in script


async def test_the_page_is_revalidated_and_its_assets_are_named_by_their_contents(api: Api):
    page = await api.client.get("/graphql", headers=HTML)
    (url,) = [u for u in links(page.text) if u.endswith("/graphiql.min.js")]
    digest = url.split("/")[-2]

    assert page.headers["cache-control"] == "no-cache"
    stale = await api.client.get(url.replace(digest, "0" * len(digest)))
    assert stale.status_code == 404
    assert stale.json()["error"]["code"] == "route/not-found"


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("LICENSE.graphiql", id="a vendored file that is not an asset"),
        pytest.param("page.html", id="the page's template"),
        pytest.param("..%2F..%2Fgraphiql.py", id="a path out of the directory"),
    ],
)
async def test_only_the_pages_assets_are_served(api: Api, name: str):
    page = await api.client.get("/graphql", headers=HTML)
    (url,) = [u for u in links(page.text) if u.endswith("/fray-graphiql.js")]

    response = await api.client.get(url.replace("fray-graphiql.js", name))

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "route/not-found"


async def test_a_query_by_get_is_not_the_page(api: Api):
    response = await api.client.get(
        "/graphql", params={"query": "{ rulesets { name } }"}, headers=HTML
    )

    assert response.status_code == 200
    assert {"name": "freeform"} in response.json()["data"]["rulesets"]
