"""`GET /v1/keys`: the public keys that receipts verify with. Public: a key proves nothing
about who asks, and an auditor needs them without a credential."""

from __future__ import annotations

from starlette.requests import Request

from service.api.access import encounters_of
from service.api.responses import JSONResponse

# Keys change only when the service restarts with a new FRAY_SIGNING_KEY, and a rotated-out
# key stays listed: a cached list verifies every receipt but those of a key added since.
CACHE_CONTROL = "public, max-age=300"


async def list_keys(request: Request) -> JSONResponse:
    keys = encounters_of(request).public_keys()
    return JSONResponse({"keys": keys}, headers={"Cache-Control": CACHE_CONTROL})
