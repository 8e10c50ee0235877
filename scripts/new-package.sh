#!/usr/bin/env bash
# Creates the boilerplate of a workspace package: package.json, tsconfig.json, src/index.ts.
# usage: scripts/new-package.sh <dir> <name> [dep-dir ...]
set -euo pipefail
dir=$1; name=$2; shift 2
mkdir -p "$dir/src"
deps=""; refs=""
for d in "$@"; do
  dn=$(node -p "require('./$d/package.json').name")
  deps="$deps\"$dn\": \"workspace:*\","
  rel=$(realpath --relative-to="$dir" "$d")
  refs="$refs{ \"path\": \"$rel\" },"
done
deps=${deps%,}; refs=${refs%,}
base=$(realpath --relative-to="$dir" tsconfig.base.json)
cat > "$dir/package.json" <<JSON
{
  "name": "$name",
  "version": "0.1.0",
  "private": true,
  "type": "module",
  "exports": {
    ".": { "source": "./src/index.ts", "types": "./dist/index.d.ts", "default": "./dist/index.js" }
  },
  "dependencies": { $deps }
}
JSON
cat > "$dir/tsconfig.json" <<JSON
{
  "extends": "$base",
  "compilerOptions": { "rootDir": "src", "outDir": "dist" },
  "include": ["src"],
  "exclude": ["src/**/*.test.ts"],
  "references": [ $refs ]
}
JSON
[ -f "$dir/src/index.ts" ] || echo "export {};" > "$dir/src/index.ts"
