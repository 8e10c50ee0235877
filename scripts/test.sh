#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs pnpm and packages, the Debian database
# servers the tests start privately (PostgreSQL, MariaDB, Redis, RabbitMQ) and the client tools (Python
# grpcio, protoc, promtool, chromium; scripts/ensure-client-tools.sh), helm and the chart's
# Kubernetes validator (Go modules into the cache folder; scripts/ensure-helm.sh), the ORC test
# peers (pyarrow in a venv and Apache ORC's orc-tools jar, in the cache folder outside the
# repository; scripts/ensure-orc-peers.sh), PyIceberg for the Iceberg tests (a venv in the cache folder;
# scripts/ensure-iceberg-peers.sh) and Iceberg's Java library with its REST catalog (jars in the cache folder;
# scripts/ensure-iceberg-java.sh), MockServer for the Http tests (scripts/ensure-mockserver.sh),
# OpenSearch for the Elasticsearch tests (scripts/ensure-opensearch.sh) and Apache Kafka's jars (scripts/ensure-kafka.sh) when
# missing, builds
# (the dashboard bundle too), then runs every test and, beside them, the static checks
# (`pnpm lint`: Biome's format check, the type check of tests and benches, typescript-eslint's
# type-checked rules). Tests start their own servers on free ports and stop them. Exits non-zero
# when a test or a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
# Go's toolchain lives in /usr/local/go on these machines; a shell without a login profile may
# not have it on PATH.
[ -d /usr/local/go/bin ] && case ":$PATH:" in *:/usr/local/go/bin:*) ;; *) export PATH="$PATH:/usr/local/go/bin" ;; esac
bash scripts/setup.sh
bash scripts/ensure-servers.sh
bash scripts/ensure-client-tools.sh
bash scripts/ensure-helm.sh
bash scripts/ensure-orc-peers.sh
bash scripts/ensure-iceberg-peers.sh
bash scripts/ensure-iceberg-java.sh
bash scripts/ensure-mockserver.sh
bash scripts/ensure-opensearch.sh
# Apache Kafka's jars for the private brokers of the Kafka tests; when Maven Central cannot be
# reached it says so in one line and those tests skip (outside CI) or fail (CI=true).
bash scripts/ensure-kafka.sh || true
pnpm build
report=$(mktemp --suffix=.json)
checks=$(mktemp --suffix=.log)
# The checks use mostly one core for about a minute; the tests spend most of their time waiting
# on the processes they start, so running both at once is shorter than one after the other.
# A run of named test files (`bash scripts/test.sh test/foo.test.ts`) skips them.
checks_pid=
if [ $# -eq 0 ]; then
  pnpm lint > "$checks" 2>&1 &
  checks_pid=$!
fi
status=0
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
if [ -s "$report" ]; then
  node scripts/test-summary.mjs "$report"
  # Kept for a look at where the time went (per file and per test), beside the other caches.
  mkdir -p "${TIDEWAY_CACHE:-$HOME/.cache/tideway}" && cp "$report" "${TIDEWAY_CACHE:-$HOME/.cache/tideway}/last-test-report.json" || true
fi
if [ -n "$checks_pid" ]; then
  if wait "$checks_pid"; then
    echo "static checks (pnpm lint): format, types and lint clean"
  else
    echo "static checks (pnpm lint) failed:"
    cat "$checks"
    status=1
  fi
fi
rm -f "$report" "$checks"
exit $status
