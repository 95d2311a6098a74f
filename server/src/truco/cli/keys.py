"""``truco keys``: create, list and revoke API keys in an event store."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from truco.commandline import Subcommands, UsageError

from .stores import add_store_option, with_store

if TYPE_CHECKING:
    from truco.server.store import EventStore

KEY_QUOTA_FLAGS: tuple[tuple[str, type[float] | type[int]], ...] = (
    ("--calls-per-second", float),
    ("--burst", int),
    ("--games-per-minute", float),
    ("--open-games", int),
    ("--calls-in-flight", int),
    ("--watch-streams", int),
    ("--watch-streams-per-key", int),
)
"""The app totals a key may carry of its own (truco.server.core.app_quotas.AppQuotas), as ``truco serve`` flags."""


def command(commands: Subcommands) -> None:
    keys = commands.add_parser(
        "keys",
        help="create, list and revoke API keys (client credentials of third-party apps)",
        description="API keys identify the apps that call the service (sent as 'x-api-key: <key>' metadata). The "
        "store keeps only a hash of each key: 'create' shows a key once. A revoked key is refused by every "
        "replica within a few seconds.",
    )
    add_store_option(keys)
    actions = keys.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    create = actions.add_parser("create", help="make a key and print it (once)")
    create.add_argument("--name", required=True, help="what the key is for, e.g. the app's name")
    create.add_argument("--json", action="store_true", help="print the key and its id as JSON")
    own = create.add_argument_group(
        "the app's own totals", "All the key's players together; unset: the server's flag of the same name."
    )
    for flag, kind in KEY_QUOTA_FLAGS:
        own.add_argument(flag, type=kind, metavar="N")
    actions.add_parser("list", help="every key: id, name, created, revoked, its own totals")
    revoke = actions.add_parser("revoke", help="refuse a key from now on")
    revoke.add_argument("key_id", metavar="KEY_ID", help="the key's id (from 'list')")
    _signing_key_commands(actions)
    keys.set_defaults(run=_run)


def _signing_key_commands(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    signing = actions.add_parser(
        "signing-key",
        help="the keys an app signs its player tokens with (x-player-token: a JWT per player)",
        description="An app's backend signs a short-lived JWT for each of its players (kid header; iss = the API "
        "key's id, sub, name, aud, exp claims). Register here the keys that verify them: an HMAC secret (HS256) or "
        "a public key in PEM (Ed25519: EdDSA; P-256: ES256). Several may be active; rotate by adding the next "
        "kid before revoking the last.",
    )
    which = signing.add_subparsers(dest="signing_command", required=True, metavar="ACTION")
    add = which.add_parser("add", help="register a signing key under an app's API key")
    add.add_argument("key_id", metavar="KEY_ID", help="the app's API key id (from 'truco keys list')")
    add.add_argument("--kid", required=True, help="the key's name, as the tokens' kid header carries it")
    material = add.add_mutually_exclusive_group(required=True)
    material.add_argument("--hmac-secret-file", metavar="FILE", help="a file holding the HS256 secret (32+ bytes)")
    material.add_argument("--public-key-file", metavar="FILE", help="an Ed25519 or P-256 public key in PEM")
    listing = which.add_parser("list", help="every app's signing keys (or one app's)")
    listing.add_argument("key_id", metavar="KEY_ID", nargs="?", help="only this app's")
    revoke = which.add_parser("revoke", help="refuse tokens signed with a key from now on")
    revoke.add_argument("key_id", metavar="KEY_ID", help="the app's API key id")
    revoke.add_argument("kid", metavar="KID", help="the signing key's kid")


def _run(args: argparse.Namespace) -> int:
    async def work(store: EventStore) -> int:
        if args.keys_command == "create":
            names = [flag[2:].replace("-", "_") for flag, _ in KEY_QUOTA_FLAGS]
            await _create(store, args.name, args.json, {name: getattr(args, name) for name in names})
        elif args.keys_command == "list":
            await _list(store)
        elif args.keys_command == "signing-key":
            await _signing_key(store, args)
        else:
            await _revoke(store, args.key_id)
        return 0

    return with_store(args.store, work)


async def _create(store: EventStore, name: str, as_json: bool, own: dict[str, float | int | None]) -> None:
    from truco.server.core.app_quotas import AppQuotas
    from truco.server.core.keys import create_key

    quotas = AppQuotas(**{quota: value for quota, value in own.items() if value is not None})  # type: ignore[arg-type]
    record, key = await create_key(store, name, quotas)
    if as_json:
        print(json.dumps({"key_id": record.key_id, "name": record.name, "key": key, "quotas": own}))
    else:
        print(f"API key {record.key_id} ({record.name}, {quotas.describe()}); shown only now, keep it secret:\n{key}")


async def _list(store: EventStore) -> None:
    from truco.server.core.app_quotas import AppQuotas
    from truco.server.core.keys import printable

    for item in await store.list_api_keys():
        state = f"revoked {item.revoked_at}" if item.revoked_at else "active"
        own = AppQuotas.from_json(item.quotas).describe()
        print(f"{item.key_id}  {item.created_at}  {state:<36}  {printable(item.name)}  ({own})")


async def _revoke(store: EventStore, key_id: str) -> None:
    from truco.server.core.keys import now
    from truco.server.store import ApiKeyNotFound

    try:
        record = await store.revoke_api_key(key_id, now())
    except ApiKeyNotFound:
        raise UsageError(f"no API key {key_id!r} (see 'truco keys list')") from None
    print(f"API key {record.key_id} ({record.name}) revoked at {record.revoked_at}")


def public_key_algorithm(pem: bytes) -> str:
    """The JWT algorithm a PEM public key verifies: EdDSA for Ed25519, ES256 for P-256.

    :raises UsageError: any other key.
    """
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    try:
        key = load_pem_public_key(pem)
    except ValueError as error:
        raise UsageError(f"not a public key in PEM: {error}") from None
    if isinstance(key, ed25519.Ed25519PublicKey):
        return "EdDSA"
    if isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, ec.SECP256R1):
        return "ES256"
    raise UsageError("a signing key is Ed25519 (EdDSA) or P-256 (ES256)")


async def _signing_key(store: EventStore, args: argparse.Namespace) -> None:
    from pathlib import Path

    from truco.server.core.keys import now, printable
    from truco.server.core.player_tokens import add_signing_key
    from truco.server.store import VersionConflict

    if args.signing_command == "list":
        for key in await store.signing_keys(args.key_id):
            state = f"revoked {key.revoked_at}" if key.revoked_at else "active"
            print(f"{key.app}  {printable(key.kid):<24}  {key.algorithm:<6}  {key.created_at}  {state}")
        return
    if args.signing_command == "revoke":
        record = await store.revoke_signing_key(args.key_id, args.kid, now())
        if record is None:
            raise UsageError(f"the app {args.key_id!r} has no signing key {args.kid!r}")
        print(f"signing key {record.kid} of {record.app} revoked at {record.revoked_at}")
        return
    if await store.api_key_by_id(args.key_id) is None:
        raise UsageError(f"no API key {args.key_id!r} (see 'truco keys list')")
    if args.hmac_secret_file:
        algorithm, material = "HS256", Path(args.hmac_secret_file).read_bytes().strip()
    else:
        material = Path(args.public_key_file).read_bytes()
        algorithm = public_key_algorithm(material)
    try:
        record = await add_signing_key(store, args.key_id, args.kid, algorithm, material)
    except ValueError as error:
        raise UsageError(str(error)) from None
    except VersionConflict:
        raise UsageError(f"the app {args.key_id} has a signing key {args.kid!r} already: use another kid") from None
    print(f"signing key {record.kid} ({record.algorithm}) of {record.app} added")
