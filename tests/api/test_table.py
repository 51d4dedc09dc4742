"""The table view as Fray serves it (service/api/table.py): the page at /table/ and
/table/{encounter_id}, its two assets named by their digests and cached for a year, a policy
that lets it load and connect to nothing but Fray. Its assets are built from clients/table
and committed: a drift test builds them again from the sources with the committed lock file
and compares, and the JavaScript a page loads must weigh under 150 KB gzipped (issue 24).
tests/e2e/test_table_browser.py plays a fight through it in a real browser."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.api.conftest import Api
from tests.node import npm_ci

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "clients" / "table"
BUILT = ROOT / "service" / "api" / "static" / "table" / "assets"
HTML = {"Accept": "text/html"}
CONTENT_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
# Issue 24: "The table view's JavaScript, gzipped, is under 150 KB."
GZIPPED_JS_LIMIT = 150 * 1024


class Links(HTMLParser):
    """Every URL the page loads: scripts' `src`, links' `href`; and any inline script."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline_scripts = 0
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        for name in ("src", "href"):
            if named.get(name) is not None:
                self.urls.append(str(named[name]))
        self._in_script = tag == "script" and "src" not in named

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline_scripts += 1

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False


def parsed(html: str) -> Links:
    parser = Links()
    parser.feed(html)
    return parser


def assets_of(html: str) -> list[str]:
    return [url for url in parsed(html).urls if not url.startswith("data:")]


@pytest.mark.anyio
@pytest.mark.parametrize("path", ["/table/", "/table/enc_0123456789abcdef"])
async def test_the_table_page_is_served_with_every_asset_it_names(api: Api, path: str):
    page = await api.client.get(path, headers=HTML)

    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.headers["cache-control"] == "no-cache"
    urls = assets_of(page.text)
    assert {url.rpartition("/")[2] for url in urls} == {"table.js", "table.css"}
    for url in urls:
        assert url.startswith("/table/assets/"), url
        asset = await api.client.get(url)
        assert asset.status_code == 200, url
        assert asset.headers["content-type"] == CONTENT_TYPES[Path(url).suffix], url
        assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert asset.headers["x-content-type-options"] == "nosniff"
        assert asset.content == (BUILT / Path(url).name).read_bytes(), url


@pytest.mark.anyio
async def test_the_page_runs_no_inline_script_and_its_policy_allows_only_fray(api: Api):
    page = await api.client.get("/table/enc_x", headers=HTML)

    assert parsed(page.text).inline_scripts == 0
    assert "http://" not in page.text and "https://" not in page.text
    policy = dict(
        d.strip().split(" ", 1) for d in page.headers["content-security-policy"].split(";")
    )
    assert policy["default-src"] == "'self'"
    assert policy["script-src"] == "'self'"
    assert policy["connect-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    # A link out of the page does not carry the encounter's address to another site.
    assert page.headers["referrer-policy"] == "no-referrer"


@pytest.mark.anyio
async def test_the_page_has_a_place_for_the_map_and_no_inline_style_to_draw_it(api: Api):
    """The map (clients/table/src/map.ts) is drawn into its section, hidden while there is no
    map. The policy allows no inline style, so nothing in the sources sets one: a side's
    colour is an SVG `fill` attribute, which the policy allows, not a `style`."""
    page = await api.client.get("/table/enc_x", headers=HTML)

    assert re.search(r'<section id="map" hidden aria-labelledby="h-map">', page.text)
    policy = page.headers["content-security-policy"]
    assert "style-src 'self'" in policy and "unsafe-inline" not in policy
    for source in sorted((PACKAGE / "src").glob("*.ts")):
        text = source.read_text()
        assert not re.search(
            r"""\.style\b|["']?\bstyle["']?\s*:|[{,]\s*style\s*[,}]|setAttribute\(["']style""", text
        ), source.name


@pytest.mark.anyio
async def test_a_stale_or_unknown_asset_is_a_404(api: Api):
    page = await api.client.get("/table/", headers=HTML)
    (url,) = [u for u in assets_of(page.text) if u.endswith("/table.js")]
    digest = url.split("/")[-2]

    stale = await api.client.get(url.replace(digest, "0" * len(digest)))
    template = await api.client.get(url.replace("table.js", "page.html"))

    assert stale.status_code == template.status_code == 404
    assert stale.json()["error"]["code"] == "route/not-found"


def test_the_javascript_a_page_loads_is_under_150_kb_gzipped():
    scripts = sorted(BUILT.glob("*.js"))

    gzipped = sum(len(gzip.compress(path.read_bytes(), compresslevel=9)) for path in scripts)

    assert [p.name for p in scripts] == ["table.js"]
    assert gzipped < GZIPPED_JS_LIMIT, f"{gzipped} bytes gzipped"


def npm(*argv: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["npm", *argv], cwd=PACKAGE, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **env},
    )  # fmt: skip


@pytest.fixture(scope="module")
def node_packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """clients/table's packages, from its lock file, once for every xdist worker."""
    return npm_ci(PACKAGE, tmp_path_factory)


def test_the_committed_assets_are_what_the_sources_build(node_packages: Path, tmp_path: Path):
    """`make table` writes them; this fails when clients/table/src, the client's sources or
    the lock file moved on without them (the build type-checks first, so it fails on a type
    error too)."""
    out = tmp_path / "assets"
    built = npm("run", "build", FRAY_TABLE_OUT=str(out))
    assert built.returncode == 0, built.stdout + built.stderr

    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in BUILT.iterdir())
    for path in sorted(out.iterdir()):
        assert path.read_bytes() == (BUILT / path.name).read_bytes(), (
            f"service/api/static/table/assets/{path.name} is stale: run `make table`"
        )
