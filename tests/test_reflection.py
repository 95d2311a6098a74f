"""Server reflection on both ports, with the contract's comments (what grpcurl and IDEs read)."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from .servers import InProcessServer, LoopThread


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
    assert {"truco.v1.GameService", "truco.v1.RulesService", "grpc.health.v1.Health"} <= names
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
