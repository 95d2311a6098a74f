"""The game application, free of gRPC and protobuf: games, seats, snapshots, commits, clocks, bots' turns,
API keys and seat tokens, the caches and the metrics it keeps."""
