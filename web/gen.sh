#!/usr/bin/env bash
# Regenerates src/gen (Connect-ES / protobuf-es stubs of proto/truco/v1 and google.rpc.ErrorInfo) with the pinned
# protoc-gen-es of package.json and the protoc of the Python dev environment (grpcio-tools, ../.venv).
#   web/gen.sh          regenerate web/src/gen
#   web/gen.sh DIR      generate into DIR instead (tests/test_web_browser.py compares it with web/src/gen)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-web/src/gen}
SP=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
rm -rf "$OUT"
mkdir -p "$OUT"
.venv/bin/python -m grpc_tools.protoc -Iproto -I"$SP" -I"$SP/grpc_tools/_proto" \
  --plugin=protoc-gen-es=web/node_modules/.bin/protoc-gen-es --es_out="$OUT" \
  --es_opt=target=ts,import_extension=js proto/truco/v1/*.proto google/rpc/error_details.proto
