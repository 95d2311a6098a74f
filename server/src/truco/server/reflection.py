"""Server reflection with the contract's comments, on both ports.

gRPC's reflection service hands out the descriptors the protobuf runtime holds, which the generated code builds
without their source info: a client reading the contract by reflection (grpcurl, Postman, an IDE) would see no
comment. This one hands out the descriptors :mod:`scripts.gen_proto` writes beside the messages
(``truco/wire/v1/contract.binpb``: every file of the contract, with its comments), and the runtime's for the rest
(health, reflection itself). The gRPC port registers it as its reflection service; the web port serves the same
servicer over gRPC (HTTP/2) through ``connectrpc``, so ``grpcurl -plaintext HOST:WEBPORT list`` works too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from importlib import resources
from typing import Any

from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

CONTRACT = "contract.binpb"


def documented_files() -> dict[str, bytes]:
    """The contract's files with their comments, serialized, by file name (``truco/v1/game_service.proto``)."""
    data = resources.files("truco.wire.v1").joinpath(CONTRACT).read_bytes()
    found = descriptor_pb2.FileDescriptorSet.FromString(data)
    return {file.name: file.SerializeToString() for file in found.file}


_ReflectionServicer: Any = reflection.aio.ReflectionServicer
"""gRPC's servicer, typed loosely: its stubs miss the methods overridden here, and type its stream a coroutine."""


class DocumentedReflection(_ReflectionServicer):  # type: ignore[misc]  # a class of an untyped base
    """gRPC's reflection servicer, answering with the documented descriptors where it has them."""

    def __init__(self, service_names: Iterable[str]) -> None:
        super().__init__(tuple(service_names))
        self._documented = documented_files()

    def _file_by_filename(self, request: Any, filename: str) -> Any:
        return self._with_comments(super()._file_by_filename(request, filename))

    def _file_containing_symbol(self, request: Any, fully_qualified_name: str) -> Any:
        return self._with_comments(super()._file_containing_symbol(request, fully_qualified_name))

    def _file_containing_extension(self, request: Any, containing_type: str, extension_number: int) -> Any:
        return self._with_comments(super()._file_containing_extension(request, containing_type, extension_number))

    def _with_comments(
        self, response: reflection_pb2.ServerReflectionResponse
    ) -> reflection_pb2.ServerReflectionResponse:
        if not response.HasField("file_descriptor_response"):
            return response  # a not-found error
        files = response.file_descriptor_response.file_descriptor_proto
        for index, serialized in enumerate(files):
            name = descriptor_pb2.FileDescriptorProto.FromString(serialized).name
            documented = self._documented.get(name)
            if documented is not None:
                files[index] = documented
        return response

    async def answer(
        self, requests: AsyncIterator[reflection_pb2.ServerReflectionRequest]
    ) -> AsyncIterator[reflection_pb2.ServerReflectionResponse]:
        """The reflection stream's answers (the web port's door to the same servicer)."""
        async for response in self.ServerReflectionInfo(requests, None):
            yield response

    def register(self, server: Any) -> None:
        """Serve as ``server``'s reflection service (a ``grpc.aio.Server``)."""
        reflection_pb2_grpc.add_ServerReflectionServicer_to_server(self, server)  # type: ignore[no-untyped-call]


__all__ = ["CONTRACT", "DocumentedReflection", "documented_files"]
