#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs pnpm and packages, the Debian database
# servers the tests start privately (PostgreSQL, MariaDB, Redis) and the client tools (Python
# grpcio, protoc, promtool, chromium; scripts/ensure-client-tools.sh) when missing, builds
# (the dashboard bundle too), type-checks,
# then runs every test. Tests start their own servers on free ports and stop them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/ensure-servers.sh
bash scripts/ensure-client-tools.sh
pnpm build
report=$(mktemp --suffix=.json)
status=0
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
[ -s "$report" ] && node scripts/test-summary.mjs "$report"
rm -f "$report"
exit $status
