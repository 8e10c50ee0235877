#!/usr/bin/env bash
# Installs what Tideway needs on a fresh Debian machine with Node.js 20: pnpm (the version the
# workspace pins) and the workspace's packages. Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

want=$(node -p "require('./package.json').packageManager.split('@')[1]")
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$want" ]; then
  echo "setup: installing pnpm $want" >&2
  npm install -g "pnpm@$want" >/dev/null 2>&1
fi
# better-sqlite3 (the Jdbc connector's SQLite driver) compiles its addon when no prebuilt one
# can be fetched; node-gyp then takes Node's headers from the Debian package, not the network.
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi
stamp=node_modules/.tideway-install-stamp
if [ ! -f "$stamp" ] || [ pnpm-lock.yaml -nt "$stamp" ]; then
  echo "setup: installing packages" >&2
  CI=true pnpm install --frozen-lockfile --reporter=silent
  touch "$stamp"
fi
