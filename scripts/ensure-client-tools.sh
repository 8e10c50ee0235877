#!/usr/bin/env bash
# Installs the Debian tools the client tests drive Tideway with, when missing: a strict gRPC
# reflection client (python3-grpcio with protobuf's C++ descriptor pool, which validates
# descriptors as grpcurl does; the reflection and health protos from grpc-proto; protoc and its
# grpc plugins to generate stubs), promtool (prometheus) to lint the /metrics names, zsh
# (the shell completion test) and chromium (the dashboard's browser test, driven by playwright-core).
set -euo pipefail

missing=()
/usr/bin/python3 -c 'import grpc, google.protobuf' >/dev/null 2>&1 || missing+=(python3-grpcio python3-protobuf)
[ -f /usr/share/grpc-proto/grpc/reflection/v1alpha/reflection.proto ] || missing+=(grpc-proto)
command -v protoc >/dev/null 2>&1 || missing+=(protobuf-compiler)
[ -x /usr/bin/grpc_python_plugin ] || missing+=(protobuf-compiler-grpc)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
# zsh: the completion test loads `tideway completion zsh` into a real zsh.
command -v zsh >/dev/null 2>&1 || missing+=(zsh)
# chromium: test/dashboard drives the dashboard in headless Chromium (playwright cannot download one here).
[ -x /usr/bin/chromium ] || missing+=(chromium)

if [ ${#missing[@]} -eq 0 ]; then
  echo "ensure-client-tools: python3-grpcio, grpc-proto, protoc with its grpc plugins, promtool, zsh and chromium are present"
  exit 0
fi

exec bash "$(dirname "$0")/apt-install.sh" ensure-client-tools "${missing[@]}"
