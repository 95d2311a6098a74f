"""Server reflection with the contract's comments, on both ports.

gRPC's reflection service hands out the descriptors the protobuf runtime holds, which the generated code builds
without their source info: a client reading the contract by reflection (grpcurl, Postman, an IDE) would see no
comment. This one hands out the descriptors :mod:`scripts.gen_proto` writes beside the messages
(``truco/wire/v1/contract.binpb``: every file of the contract, with its comments), and the runtime's for the rest
(health, reflection itself). The gRPC port registers it as its reflection service; the web port serves the same
servicer over gRPC (HTTP/2) through ``connectrpc``, so ``grpcurl -plaintext HOST:WEBPORT list`` works too.

It answers as both versions of the reflection service, ``grpc.reflection.v1`` (what grpcurl, ``buf curl`` and
Postman ask first) and ``grpc.reflection.v1alpha`` (their fallback): the two protocols are the same messages in
two packages, so one servicer serves both with v1alpha's classes. Lookups come from a pool of the contract's
own files (every file of it, whether or not this process imported its generated module), and a symbol may be a
method (``truco.v1.GameService.CreateGame``), which the protobuf runtime's pool does not find by itself.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Iterable
from importlib import resources
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

CONTRACT = "contract.binpb"
V1ALPHA = reflection.SERVICE_NAME
V1 = "grpc.reflection.v1.ServerReflection"
REFLECTION_SERVICES = (V1, V1ALPHA)
"""The reflection services both ports serve, each under its own name."""


def documented_files() -> dict[str, bytes]:
    """The contract's files with their comments, serialized, by file name (``truco/v1/game_service.proto``)."""
    data = resources.files("truco.wire.v1").joinpath(CONTRACT).read_bytes()
    found = descriptor_pb2.FileDescriptorSet.FromString(data)
    return {file.name: file.SerializeToString() for file in found.file}


def v1_file() -> descriptor_pb2.FileDescriptorProto:
    """``grpc/reflection/v1/reflection.proto``: v1alpha's file moved to the v1 package (the same messages and
    fields; grpcio-reflection ships only v1alpha's), so a client can describe the v1 service it is told of."""
    file = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(file)
    old, new = file.package, "grpc.reflection.v1"
    file.name, file.package = "grpc/reflection/v1/reflection.proto", new

    def moved(name: str) -> str:
        return name.replace(f".{old}.", f".{new}.", 1)

    for message in file.message_type:
        for field in message.field:
            if field.type_name:  # scalars have none (setting "" would mark it present)
                field.type_name = moved(field.type_name)
    for service in file.service:
        for method in service.method:
            method.input_type, method.output_type = moved(method.input_type), moved(method.output_type)
    return file


def contract_pool(documented: dict[str, bytes]) -> descriptor_pool.DescriptorPool:
    """A pool of every file the reflection services describe: the contract's, health's and reflection's."""
    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()

    def add(file: Any) -> None:  # the runtime's FileDescriptor, after its dependencies
        if file.name in added:
            return
        for dependency in file.dependencies:
            add(dependency)
        proto = descriptor_pb2.FileDescriptorProto()
        file.CopyToProto(proto)
        pool.Add(proto)
        added.add(file.name)

    for name, serialized in documented.items():  # in dependency order, as protoc wrote them
        pool.Add(descriptor_pb2.FileDescriptorProto.FromString(serialized))
        added.add(name)
    add(health_pb2.DESCRIPTOR)
    add(reflection_pb2.DESCRIPTOR)
    pool.Add(v1_file())
    return pool


_ReflectionServicer: Any = reflection.aio.ReflectionServicer
"""gRPC's servicer, typed loosely: its stubs miss the methods overridden here, and type its stream a coroutine."""


class DocumentedReflection(_ReflectionServicer):  # type: ignore[misc]  # a class of an untyped base
    """gRPC's reflection servicer, answering with the documented descriptors where it has them."""

    def __init__(self, service_names: Iterable[str]) -> None:
        documented = documented_files()
        names = sorted({*service_names, *REFLECTION_SERVICES})
        super().__init__(tuple(names), pool=contract_pool(documented))
        self._documented = documented

    def listing(self, service_names: Iterable[str]) -> DocumentedReflection:
        """The same servicer listing only ``service_names`` and reflection's (for a port that serves fewer: the
        web port has no health service)."""
        other = copy.copy(self)
        other._service_names = tuple(sorted({*service_names, *REFLECTION_SERVICES}))
        return other

    def _file_by_filename(self, request: Any, filename: str) -> Any:
        return self._with_comments(super()._file_by_filename(request, filename))

    def _file_containing_symbol(self, request: Any, fully_qualified_name: str) -> Any:
        service, _, method = fully_qualified_name.rpartition(".")
        if not self._has_symbol(fully_qualified_name) and self._has_method(service, method):
            fully_qualified_name = service  # a method: its service's file
        return self._with_comments(super()._file_containing_symbol(request, fully_qualified_name))

    def _has_symbol(self, name: str) -> bool:
        try:
            self._pool.FindFileContainingSymbol(name)
        except KeyError:
            return False
        return True

    def _has_method(self, service: str, method: str) -> bool:
        try:
            return method in self._pool.FindServiceByName(service).methods_by_name
        except KeyError:
            return False

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
        """Serve as ``server``'s reflection services, v1alpha and v1 (a ``grpc.aio.Server``)."""
        reflection_pb2_grpc.add_ServerReflectionServicer_to_server(self, server)  # type: ignore[no-untyped-call]
        info = grpc.stream_stream_rpc_method_handler(
            self.ServerReflectionInfo,
            request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
            response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
        )
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(V1, {"ServerReflectionInfo": info}),))


__all__ = ["CONTRACT", "REFLECTION_SERVICES", "V1", "V1ALPHA", "DocumentedReflection", "documented_files"]
