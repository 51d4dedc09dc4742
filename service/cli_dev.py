"""What `fray dev` keeps in `.fray/` between runs: its API key, token secret and signing key.

Each is generated the first time (mode 0600) and read back on every later start, unless the
environment sets it, which always wins.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path

from service.app.auth import parse_keys
from service.app.receipts import new_key_entry, parse_signing_keys
from service.config import ConfigError

# Where `fray dev` keeps what it generates, beside its embedded Redis's data: the encounters
# it persists stay usable after a restart (their tenant's key, the tokens minted for them,
# the receipts signed for them). A variable set in the environment wins over a kept file.
DEV_DIR = Path(".fray")
DEV_API_KEYS = DEV_DIR / "api-keys"
DEV_TOKEN_SECRET = DEV_DIR / "token-secret"
DEV_SIGNING_KEY = DEV_DIR / "signing-key"


class DevSettingError(ConfigError):
    """A kept setting that does not read: `fray dev` stops and names the file."""


def _kept(name: str, path: Path, make: Callable[[], str]) -> bool | None:
    """Set the environment variable `name` from the value kept in `path` when it is unset,
    the file made first (mode 0600, `make()`) if there is none. None: the environment had
    it; True: it was generated now; False: the kept one was reused."""
    if os.environ.get(name):
        return None
    generated = not path.exists()
    if generated:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(make() + "\n")
    value = path.read_text().strip()
    if not value:
        raise DevSettingError(f"{path} is empty: delete it to have a new value generated")
    os.environ[name] = value
    return generated


def keep_credentials(port: int) -> None:
    """A development API key and token secret when none are set: kept in `.fray/`, so the
    keys and tokens handed out for the encounters it persists still work after a restart."""
    made = _kept("FRAY_API_KEYS", DEV_API_KEYS, lambda: f"dev:{secrets.token_urlsafe(24)}")
    if made is not None:
        try:
            tenants = parse_keys(os.environ["FRAY_API_KEYS"].split(","))
        except ValueError as error:
            raise DevSettingError(f"{DEV_API_KEYS}: {error}") from None
        if not tenants:
            raise DevSettingError(f"{DEV_API_KEYS} holds no key: delete it to have one made")
        print(f"fray dev: FRAY_API_KEYS was unset; {_how(made, DEV_API_KEYS)}:")
        for secret, tenant in tenants.items():
            print(f"fray dev:   tenant {tenant!r}: {secret}")
        key = next(iter(tenants))
        print(
            f'fray dev:   curl -H "Authorization: Bearer {key}" http://127.0.0.1:{port}/v1/rulesets'
        )
    made = keep_token_secret()
    if made is not None:
        how = _how(made, DEV_TOKEN_SECRET)
        print(f"fray dev: FRAY_TOKEN_SECRET was unset; {how}: tokens outlive a restart")


def keep_token_secret() -> bool | None:
    """FRAY_TOKEN_SECRET from `.fray/` when it is unset (made there first if need be): what
    `fray dev` signs tokens with, and `fray demo --table` the token it prints."""
    return _kept("FRAY_TOKEN_SECRET", DEV_TOKEN_SECRET, lambda: secrets.token_hex(32))


def _how(made: bool, path: Path) -> str:
    if made:
        return f"generated one and kept it in {path} (mode 0600)"
    return f"using the one kept in {path}"


def keep_signing_key() -> None:
    """FRAY_SIGNING_KEY when unset: the key kept in `.fray/signing-key`, made the first time.
    `SigningKeyError` if the kept one does not parse."""
    made = _kept("FRAY_SIGNING_KEY", DEV_SIGNING_KEY, lambda: new_key_entry("dev"))
    if made is None:
        return
    path = DEV_SIGNING_KEY
    (key, *_) = parse_signing_keys(os.environ["FRAY_SIGNING_KEY"], source=str(path))
    if made:
        print(
            f"fray dev: FRAY_SIGNING_KEY was unset; generated signing key {key.kid!r} and kept "
            f"it in {path} (mode 0600): receipts still verify after a restart"
        )
    else:
        print(
            f"fray dev: FRAY_SIGNING_KEY was unset; signing receipts with {key.kid!r} from {path}"
        )
