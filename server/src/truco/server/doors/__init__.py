"""The ports: gRPC (:mod:`.grpc_door`) and Connect/gRPC-Web (:mod:`.web`), reflection, and the connection
limits that stand before both."""
