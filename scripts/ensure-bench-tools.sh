#!/usr/bin/env bash
# Installs what the database benchmarks compare against, when missing: pgloader (MariaDB ->
# PostgreSQL) and GNU time (peak memory of each command). Debian packages.
set -euo pipefail
missing=()
command -v pgloader >/dev/null 2>&1 || missing+=(pgloader)
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "ensure-bench-tools: installing ${missing[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
