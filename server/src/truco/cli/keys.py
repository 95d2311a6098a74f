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
    keys.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    async def work(store: EventStore) -> int:
        if args.keys_command == "create":
            names = [flag[2:].replace("-", "_") for flag, _ in KEY_QUOTA_FLAGS]
            await _create(store, args.name, args.json, {name: getattr(args, name) for name in names})
        elif args.keys_command == "list":
            await _list(store)
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
