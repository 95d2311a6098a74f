// The code generators of scripts/gen-sdks and the module zipper of scripts/release (modzip), pinned here (go.sum)
// so that every machine generates and packs the same thing.
module github.com/truco-uy/truco/clients/go/tools

go 1.26.0

tool (
	google.golang.org/grpc/cmd/protoc-gen-go-grpc
	google.golang.org/protobuf/cmd/protoc-gen-go
)

require golang.org/x/mod v0.43.0

require (
	google.golang.org/grpc/cmd/protoc-gen-go-grpc v1.6.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
