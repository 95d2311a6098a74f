"""Server reflection on both ports, with the contract's comments (what grpcurl and IDEs read)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from truco.server.doors.reflection import V1

from ..servers import InProcessServer, LoopThread


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessServer]:
    loop = LoopThread()
    started = InProcessServer(loop, f"sqlite:///{tmp_path_factory.mktemp('reflection') / 'truco.db'}", web=True)
    yield started
    started.stop()
    loop.close()


Request = reflection_pb2.ServerReflectionRequest


def ask(address: str, *requests: Request) -> list[reflection_pb2.ServerReflectionResponse]:
    with grpc.insecure_channel(address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        return list(stub.ServerReflectionInfo(iter(requests), timeout=10))


@pytest.mark.parametrize("port", ["grpc", "web"])
def test_reflection_lists_the_services_and_hands_out_documented_files(server: InProcessServer, port: str) -> None:
    assert server.server.web is not None
    address = server.address if port == "grpc" else f"127.0.0.1:{server.server.web.port}"
    listed, found = ask(
        address,
        Request(list_services=""),
        Request(file_containing_symbol="truco.v1.GameService"),
    )
    names = {service.name for service in listed.list_services_response.service}
    reflections = {V1, "grpc.reflection.v1alpha.ServerReflection"}
    served = {"truco.v1.GameService", "truco.v1.RulesService", "truco.v1.PlayerService", *reflections}
    # Each port lists what it serves, and only that: health is the gRPC port's.
    assert names == (served | {"grpc.health.v1.Health"} if port == "grpc" else served)
    files = {
        file.name: file
        for file in map(
            descriptor_pb2.FileDescriptorProto.FromString, found.file_descriptor_response.file_descriptor_proto
        )
    }
    service_file = files["truco/v1/game_service.proto"]
    comments = [location.leading_comments for location in service_file.source_code_info.location]
    assert any("Matches of Truco Uruguayo" in comment for comment in comments), "the contract's comments"
    assert "truco/v1/views.proto" in files, "with the files it imports"


def ask_v1(address: str, *requests: Request) -> list[reflection_pb2.ServerReflectionResponse]:
    """Ask ``grpc.reflection.v1``, what grpcurl asks first: its messages are v1alpha's, in another package."""
    with grpc.insecure_channel(address) as channel:
        info = channel.stream_stream(
            f"/{V1}/ServerReflectionInfo",
            request_serializer=Request.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )
        return list(info(iter(requests), timeout=10))


def address_of(server: InProcessServer, port: str) -> str:
    assert server.server.web is not None
    return server.address if port == "grpc" else f"127.0.0.1:{server.server.web.port}"


@pytest.mark.parametrize("port", ["grpc", "web"])
@pytest.mark.parametrize("version", ["v1", "v1alpha"])
def test_both_versions_find_methods_enums_and_themselves(server: InProcessServer, port: str, version: str) -> None:
    """grpcurl's `describe truco.v1.GameService.CreateGame` asks for the file of a method's name; an enum no
    service imports (errors.proto) is found too, and each reflection service can be described."""
    symbols = [
        "truco.v1.GameService.CreateGame",
        "truco.v1.RulesService.CompareCards",
        "truco.v1.ErrorReason",
        "truco.v1.CreateGameRequest",
        V1,
        "grpc.reflection.v1alpha.ServerReflection",
    ]
    requests = [Request(list_services=""), *(Request(file_containing_symbol=symbol) for symbol in symbols)]
    requests += [Request(file_containing_symbol="truco.v1.GameService.Nope"), Request(file_by_filename="nope.proto")]
    answers = (ask_v1 if version == "v1" else ask)(address_of(server, port), *requests)
    listed = {service.name for service in answers[0].list_services_response.service}
    assert {V1, "grpc.reflection.v1alpha.ServerReflection", "truco.v1.GameService"} <= listed
    for symbol, answer in zip(symbols, answers[1:-2], strict=True):
        files = answer.file_descriptor_response.file_descriptor_proto
        assert files, f"{symbol}: {answer.error_response}"
        first = descriptor_pb2.FileDescriptorProto.FromString(files[0])
        assert symbol.startswith(first.package + "."), (symbol, first.name)
    for unknown in answers[-2:]:
        assert unknown.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]


@pytest.mark.parametrize("port", ["grpc", "web"])
def test_an_unknown_method_is_unimplemented_over_grpc(server: InProcessServer, port: str) -> None:
    with grpc.insecure_channel(address_of(server, port)) as channel:
        for path in ("/truco.v1.GameService/Nope", "/truco.v9.Nothing/Call"):
            call = channel.unary_unary(path, request_serializer=bytes, response_deserializer=bytes)
            with pytest.raises(grpc.RpcError) as refused:
                call(b"", timeout=10)
            assert refused.value.code() is grpc.StatusCode.UNIMPLEMENTED, path  # type: ignore[attr-defined]


def post(url: str, body: bytes, content_type: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body, headers={"content-type": content_type}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


@pytest.mark.parametrize("path", ["/truco.v1.GameService/Nope", "/truco.v9.Nothing/Call"])
def test_an_unknown_method_is_unimplemented_over_grpc_web_and_connect(server: InProcessServer, path: str) -> None:
    assert server.server.web is not None
    url = f"http://127.0.0.1:{server.server.web.port}{path}"
    status, headers, _ = post(url, b"\x00\x00\x00\x00\x00", "application/grpc-web+proto")
    assert (status, headers.get("grpc-status")) == (200, str(grpc.StatusCode.UNIMPLEMENTED.value[0]))
    status, _, body = post(url, b"{}", "application/json")  # Connect unary: unimplemented is HTTP 404
    assert (status, json.loads(body)["code"]) == (404, "unimplemented")
    status, _, body = post(url, b"\x00\x00\x00\x00\x02{}", "application/connect+json")  # a Connect stream
    assert status == 200 and body[0] == 2, body  # the end-of-stream message, with the error
    assert json.loads(body[5 : 5 + int.from_bytes(body[1:5], "big")])["error"]["code"] == "unimplemented"
    assert post(url.replace(path, "/index.html"), b"{}", "text/plain")[0] in {404, 405}, "not an RPC: a file's"
