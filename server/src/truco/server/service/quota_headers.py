"""The headers that tell a caller its quota, the same on both ports: HTTP response headers on the web port
(Connect, gRPC-Web, gRPC), gRPC metadata on the gRPC port. Written here once; each door attaches them.

Every admitted call of the game and rules services reports what is left of its call rate (the player's token
bucket or its app's, whichever is closer to refusing it: ``admission.Allowance``), in the style of the IETF
draft "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers):

- ``ratelimit-limit``: the calls the caller may make at once (the bucket's capacity, the burst);
- ``ratelimit-remaining``: the whole calls it may make now, this one taken;
- ``ratelimit-reset``: whole seconds (rounded up) until the bucket is full again;
- ``ratelimit-policy``: ``LIMIT;w=WINDOW;name="QUOTA"``, the bucket refilling LIMIT calls in WINDOW seconds,
  QUOTA the flag that sets it (``player_calls_per_second`` or ``calls_per_second``).

A call a quota refused (RESOURCE_EXHAUSTED, reason ``QUOTA_EXCEEDED``) carries when to send it again:
``retry-after`` in whole seconds as RFC 9110 has it (rounded up, at least 1), and ``retry-after-ms`` in
milliseconds (rounded up), the sub-second delay that ``retry-after`` cannot say; the status' google.rpc.RetryInfo
says the same delay as a Duration, to the nanosecond.
"""

from __future__ import annotations

import functools
import math

from truco.server.limits.admission import Allowance
from truco.server.service.errors import ServiceError

LIMIT = "ratelimit-limit"
REMAINING = "ratelimit-remaining"
RESET = "ratelimit-reset"
POLICY = "ratelimit-policy"
RETRY_AFTER = "retry-after"
RETRY_AFTER_MS = "retry-after-ms"
NAMES = (LIMIT, REMAINING, RESET, POLICY, RETRY_AFTER, RETRY_AFTER_MS)
"""Every header this module writes (the web port lets cross-origin pages read them)."""
Headers = tuple[tuple[str, str], ...]


@functools.lru_cache(maxsize=256)
def _policy(quota: str, limit: int, window: float) -> tuple[tuple[str, str], tuple[str, str]]:
    """The headers that only change with the quota itself, made once per quota."""
    return (LIMIT, str(limit)), (POLICY, f'{limit};w={window:g};name="{quota}"')


def allowance_headers(allowance: Allowance | None) -> Headers:
    """The ``ratelimit-*`` headers of an admitted call (none when call rates are off)."""
    if allowance is None:
        return ()
    limit, policy = _policy(allowance.quota, allowance.limit, allowance.window)
    return (limit, (REMAINING, str(allowance.remaining)), (RESET, str(math.ceil(allowance.reset))), policy)


def refusal_headers(error: ServiceError) -> Headers:
    """When a call a quota refused may be sent again (none for any other failure)."""
    if error.quota is None:
        return ()
    after = error.quota.retry_after
    milliseconds = math.ceil(round(after * 1000, 6))  # rounded first: 0.034 s is 34 ms, not 35
    return (RETRY_AFTER, str(max(1, math.ceil(after)))), (RETRY_AFTER_MS, str(max(1, milliseconds)))


def failure_headers(error: ServiceError, allowance: Allowance | None) -> Headers:
    """The headers of a failed call: its allowance if it was admitted first, and a quota's retry delay."""
    return allowance_headers(allowance) + refusal_headers(error)


__all__ = ["NAMES", "Headers", "allowance_headers", "failure_headers", "refusal_headers"]
