"""A Connect client for the tests of the web port, made from the services' descriptors like the server's endpoints
(no generated bindings): ``games.create_game(request)``, ``games.watch_game(request)`` and so on, each method of
the service under its snake_case name, over any of connectrpc's protocols (Connect, gRPC-Web, gRPC)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping
from typing import Any

from connectrpc.client import ConnectClient
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor

from truco_client.v1 import game_service_pb2, rules_service_pb2


def snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def method_info(method: MethodDescriptor) -> MethodInfo[Any, Any]:
    return MethodInfo(
        name=method.name,
        service_name=method.containing_service.full_name,
        input=message_factory.GetMessageClass(method.input_type),
        output=message_factory.GetMessageClass(method.output_type),
        idempotency_level=IdempotencyLevel.UNKNOWN,
        stream_type=StreamType.SERVER_STREAM if method.server_streaming else StreamType.UNARY,
    )


class DescribedClient(ConnectClient):
    """A client of one service: each RPC is a method named after it (``CreateGame``: ``create_game``)."""

    def __init__(self, service: ServiceDescriptor, address: str, **options: Any) -> None:
        options.setdefault("codec", google_protobuf_binary_codec())
        super().__init__(address=address, **options)
        self._methods = {snake_case(method.name): method_info(method) for method in service.methods}

    def __getattr__(self, name: str) -> Any:
        methods = self.__dict__.get("_methods", {})
        if name not in methods:
            raise AttributeError(name)
        info = methods[name]
        if info.stream_type is StreamType.SERVER_STREAM:

            def stream(request: Any, *, headers: Mapping[str, str] | None = None) -> AsyncIterator[Any]:
                return self.execute_server_stream(request=request, method=info, headers=headers)

            return stream

        async def unary(request: Any, *, headers: Mapping[str, str] | None = None) -> Any:
            return await self.execute_unary(request=request, method=info, headers=headers)

        return unary


def game_service_client(address: str, **options: Any) -> DescribedClient:
    return DescribedClient(game_service_pb2.DESCRIPTOR.services_by_name["GameService"], address, **options)


def rules_service_client(address: str, **options: Any) -> DescribedClient:
    return DescribedClient(rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"], address, **options)
