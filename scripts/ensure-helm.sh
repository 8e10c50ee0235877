#!/usr/bin/env bash
# Builds what test/deploy/helm-chart.test.ts renders and checks the Helm chart with, from the Go
# module proxy with `go install` / `go build`, into ${TIDEWAY_CACHE:-$HOME/.cache/tideway}/go-bin
# (outside the repository):
# - helm, pinned below, linked with the version numbers its own release build sets (its
#   version, and the Kubernetes version it assumes offline: 1.<minor of its k8s.io modules>);
# - tideway-k8s-validate (deploy/helm/validate), which decodes every rendered document strictly
#   into the k8s.io/api types (decision 0047).
# The first build of helm takes a few minutes on 2 cores; later runs find it built (and the Go
# build cache makes the validator's rebuild a link). Nothing here fails the suite: when go is
# missing or a module cannot be fetched it says so in one line, and the chart tests are
# skipped (outside CI) or fail (CI=true).
set -euo pipefail
cd "$(dirname "$0")/.."

HELM_VERSION=v3.22.0
# helm v3.22.0 builds against k8s.io/client-go v0.37: what its Makefile turns into 1.37.
K8S_MAJOR=1
K8S_MINOR=37

bin="${TIDEWAY_CACHE:-$HOME/.cache/tideway}/go-bin"
mkdir -p "$bin"

if ! command -v go >/dev/null 2>&1; then
  echo "ensure-helm: no go command on PATH: cannot build helm and the chart validator (the Helm chart tests are skipped, and fail in CI)"
  exit 0
fi

if [ "$("$bin/helm" version --template '{{.Version}}' 2>/dev/null || true)" != "$HELM_VERSION" ]; then
  echo "ensure-helm: building helm $HELM_VERSION with go install (a few minutes the first time)"
  ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
    ldflags="$ldflags -X $pkg.k8sVersionMajor=$K8S_MAJOR -X $pkg.k8sVersionMinor=$K8S_MINOR"
  done
  if ! GOBIN="$bin" go install -ldflags "$ldflags" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" > "$bin/helm-build.log" 2>&1; then
    echo "ensure-helm: go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION failed (is the Go module proxy reachable?): $(tail -n 1 "$bin/helm-build.log")"
    exit 0
  fi
fi

# Rebuilt every run: a changed validator must not be skipped; unchanged, go build only links.
if ! (cd deploy/helm/validate && go build -o "$bin/tideway-k8s-validate" .) > "$bin/validate-build.log" 2>&1; then
  rm -f "$bin/tideway-k8s-validate"
  echo "ensure-helm: cannot build deploy/helm/validate (are its modules reachable through the Go module proxy?): $(tail -n 1 "$bin/validate-build.log")"
  exit 0
fi
echo "ensure-helm: helm $HELM_VERSION and tideway-k8s-validate in $bin"
