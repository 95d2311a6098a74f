"""The contract answers every question: each reason the server can send is listed, once, in ErrorReason
(proto/truco/v1/errors.proto), with the status code it comes with.

The reasons a server can send are the service's own (truco.server.core.reasons.ServiceReason) and the engine's
(truco.engine.Reason): both enums are compared with the proto's list, both ways, so a reason added to the code
without the contract (or left in the contract after the code dropped it) fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

from truco.engine import Reason
from truco.server.core.reasons import ServiceReason
from truco.server.service.errors import CODES
from truco_client.v1 import errors_pb2

ROOT = Path(__file__).resolve().parents[2]
ERRORS_PROTO = ROOT / "proto" / "truco" / "v1" / "errors.proto"
ENGINE = ROOT / "engine" / "src" / "truco" / "engine"
PREFIX = "ERROR_REASON_"
_VALUE = re.compile(r"((?:  //[^\n]*\n)+)  (ERROR_REASON_\w+) = \d+;")
_RAISED = re.compile(r"\b(InvalidCommand|RuleViolation)\(\s*Reason\.(\w+)")


def listed() -> dict[str, str]:
    """Each listed reason (the wire name, without the prefix) and the status code its comment starts with."""
    found = {}
    for comment, name in _VALUE.findall(ERRORS_PROTO.read_text()):
        first = comment.strip().removeprefix("//").strip()
        found[name.removeprefix(PREFIX)] = first.split(".")[0]
    return found


def test_every_reason_the_server_can_send_is_listed_once_and_nothing_else() -> None:
    sendable = {reason.value for reason in ServiceReason} | {reason.value for reason in Reason}
    in_proto = [value.name.removeprefix(PREFIX) for value in errors_pb2.ErrorReason.DESCRIPTOR.values]
    assert len(in_proto) == len(set(in_proto))
    assert set(in_proto) - {"UNSPECIFIED"} == sendable, (
        f"not listed: {sorted(sendable - set(in_proto))}; listed but never sent: {sorted(set(in_proto) - sendable)}"
    )
    assert set(listed()) - {"UNSPECIFIED"} == sendable  # each one documented


def test_each_listed_reason_names_the_status_code_it_comes_with() -> None:
    codes = listed()
    for reason, code in CODES.items():
        assert codes[reason.value] == code.name, reason
    # The engine's: malformed commands are INVALID_ARGUMENT, refused moves FAILED_PRECONDITION (errors.py).
    raised = {
        (kind, reason) for path in ENGINE.glob("*.py") for kind, reason in _RAISED.findall(path.read_text())
    }
    assert raised, "no refusal found in the engine's source"
    for kind, reason in raised:
        expected = "INVALID_ARGUMENT" if kind == "InvalidCommand" else "FAILED_PRECONDITION"
        assert codes[reason] == expected, (kind, reason)
