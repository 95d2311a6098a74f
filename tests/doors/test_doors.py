"""Every RPC of the contract is on both doors, by construction: each method of the services' descriptors is
called on the gRPC port and, as Connect JSON, on the web port, and reaches the service (an answer, or a refusal
with the service's ErrorInfo, never UNIMPLEMENTED or a 404), counted with its protocol."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.rpc import error_details_pb2, status_pb2
from prometheus_client.parser import text_string_to_metric_families

from truco_client.v1 import game_service_pb2, players_pb2, rules_service_pb2

from ..servers import InProcessServer, LoopThread

SERVICES = (
    game_service_pb2.DESCRIPTOR.services_by_name["GameService"],
    rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"],
    players_pb2.DESCRIPTOR.services_by_name["PlayerService"],
)
METHODS = [method for service in SERVICES for method in service.methods]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessServer]:
    loop = LoopThread()
    store = f"sqlite:///{tmp_path_factory.mktemp('doors') / 'truco.db'}"
    started = InProcessServer(loop, store, web=True, metrics=True)
    yield started
    started.stop()
    loop.close()


def _reason_of_status(error: grpc.RpcError) -> str:
    trailers = dict(error.trailing_metadata() or ())  # type: ignore[attr-defined]
    status = status_pb2.Status.FromString(trailers["grpc-status-details-bin"])
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    return info.reason


def call_grpc(address: str, method: MethodDescriptor) -> str:
    """The method called with an empty request on the gRPC port: "OK" or the refusal's reason."""
    request = message_factory.GetMessageClass(method.input_type)()
    response = message_factory.GetMessageClass(method.output_type)
    path = f"/{method.containing_service.full_name}/{method.name}"
    with grpc.insecure_channel(address) as channel:
        try:
            if method.client_streaming:  # PlayGame: one message, then the stream's answer
                bidi = channel.stream_stream(path, lambda m: m.SerializeToString(), response.FromString)
                for _ in bidi(iter([request]), timeout=10):
                    break
            elif method.server_streaming:
                stream = channel.unary_stream(path, lambda m: m.SerializeToString(), response.FromString)
                for _ in stream(request, timeout=10):
                    break
            else:
                channel.unary_unary(path, lambda m: m.SerializeToString(), response.FromString)(request, timeout=10)
        except grpc.RpcError as error:
            assert error.code() is not grpc.StatusCode.UNIMPLEMENTED, path  # type: ignore[attr-defined]
            return _reason_of_status(error)
    return "OK"


def call_connect(port: int, method: MethodDescriptor) -> str:
    """The method called with an empty request as Connect JSON on the web port: "OK" or the refusal's reason."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    streaming = method.server_streaming
    content_type = "application/connect+json" if streaming else "application/json"
    body = b"\x00" + len(b"{}").to_bytes(4, "big") + b"{}" if streaming else b"{}"
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", body, {"content-type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            data = answer.read()
    except urllib.error.HTTPError as error:
        assert error.code != 404, path
        return _reason_of_connect(json.loads(error.read()))
    if streaming:  # an enveloped stream: the end-of-stream message (flag 2) carries an error, if any
        while data:
            flags, size = data[0], int.from_bytes(data[1:5], "big")
            frame, data = data[5 : 5 + size], data[5 + size :]
            if flags & 2 and "error" in (end := json.loads(frame)):
                return _reason_of_connect(end["error"])
    return "OK"


def _reason_of_connect(error: dict[str, Any]) -> str:
    detail = next(d for d in error["details"] if d["type"] == "google.rpc.ErrorInfo")
    info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4)))
    return info.reason


def test_the_contract_has_the_methods_the_doors_serve(server: InProcessServer) -> None:
    served = {method.path for methods in server.server.services for method in methods}
    assert served == {f"/{m.containing_service.full_name}/{m.name}" for m in METHODS}
    assert len(METHODS) == 20  # 13 of GameService, 2 of RulesService, 5 of PlayerService: a new RPC shows here


@pytest.mark.parametrize("method", METHODS, ids=lambda method: method.name)
def test_every_method_reaches_the_service_on_both_doors(server: InProcessServer, method: MethodDescriptor) -> None:
    assert server.server.web is not None
    on_grpc = call_grpc(server.address, method)
    on_web = call_connect(server.server.web.port, method)
    if method.client_streaming:  # PlayGame: the gRPC port's only (the web port refuses it, through the pipeline)
        assert (on_grpc, on_web) == ("MALFORMED_REQUEST", "NOT_ON_THIS_PORT"), method.name
        on_web = on_grpc
    assert on_grpc == on_web, f"{method.name}: gRPC {on_grpc}, Connect {on_web}"
    assert on_grpc == "OK" or on_grpc.isupper(), on_grpc  # a stable reason of the service's
    assert server.metrics_port is not None
    with urllib.request.urlopen(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    started = {
        (sample.labels["grpc_method"], sample.labels["protocol"])
        for family in text_string_to_metric_families(text)
        if family.name == "grpc_server_started"
        for sample in family.samples
        if sample.value > 0
    }
    assert {(method.name, "grpc"), (method.name, "connect")} <= started


def test_a_connect_error_shows_its_details_as_json_too(server: InProcessServer) -> None:
    """curl users read the reason without a protobuf decoder: each detail's ``debug`` beside its base64 value."""
    assert server.server.web is not None
    url = f"http://127.0.0.1:{server.server.web.port}/truco.v1.GameService/GetGameView"
    request = urllib.request.Request(url, b'{"name": "games/nope"}', {"content-type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 404
    body = refused.value.read()
    assert int(refused.value.headers["content-length"]) == len(body)
    detail = json.loads(body)["details"][0]
    assert detail["type"] == "google.rpc.ErrorInfo"
    assert detail["debug"] == {"reason": "GAME_NOT_FOUND", "domain": "truco.v1"}
    assert _reason_of_connect(json.loads(body)) == "GAME_NOT_FOUND"  # and the binary value says the same
