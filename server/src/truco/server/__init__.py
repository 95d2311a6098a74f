"""The stateless gRPC server: any replica answers any request; the event store is the truth."""
