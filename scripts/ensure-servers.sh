#!/usr/bin/env bash
# Installs the database servers the test harness (libs/launchers) starts privately, but only the
# ones whose binaries are missing: PostgreSQL (15 where Debian has it, with PostGIS and the
# decoderbufs output plugin), MariaDB, Redis, RabbitMQ and Firebird 3; and lzop and zip, the reference tools the lzo
# tests compare against and the conformance suite makes SeaTunnel's lzop and zip files with.
# Nothing is started or enabled here; the harness runs its own servers on free ports.
set -euo pipefail

missing=()
pg_found=no
for d in /usr/lib/postgresql/*/bin; do
  if [ -x "$d/postgres" ] && [ -x "$d/initdb" ]; then pg_found=yes; fi
done
if [ "$pg_found" = no ]; then
  if apt-cache show postgresql-15 >/dev/null 2>&1; then missing+=(postgresql-15); else missing+=(postgresql); fi
fi
if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ] || ! command -v mariadb-install-db >/dev/null 2>&1; then
  missing+=(mariadb-server)
fi
if ! command -v redis-server >/dev/null 2>&1; then missing+=(redis-server); fi
if ! command -v redis-cli >/dev/null 2>&1; then missing+=(redis-tools); fi # the cluster tests join nodes with redis-cli
# RabbitMQ: libs/launchers starts private nodes from the broker's own start script and epmd.
if ! ls /usr/lib/rabbitmq/lib/rabbitmq_server-*/sbin/rabbitmq-server >/dev/null 2>&1 || [ ! -x /usr/bin/epmd ]; then
  missing+=(rabbitmq-server)
fi
# PostGIS: SeaTunnel's PostgreSQL Jdbc e2e configs (test/jdbc/seatunnel-configs) read geometry columns.
if ! ls /usr/share/postgresql/*/extension/postgis.control >/dev/null 2>&1; then
  pg_major=15
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/postgres" ] && pg_major=$(basename "$(dirname "$d")"); done
  missing+=("postgresql-${pg_major}-postgis-3")
fi

# decoderbufs: Postgres-CDC's decoding.plugin.name = "decoderbufs" (libs/connectors/postgres-cdc, test/cdc).
pg_major=15
for d in /usr/lib/postgresql/*/bin; do [ -x "$d/postgres" ] && pg_major=$(basename "$(dirname "$d")"); done
if [ ! -e "/usr/lib/postgresql/${pg_major}/lib/decoderbufs.so" ] && [ "$pg_found" = yes ]; then
  missing+=("postgresql-${pg_major}-decoderbufs")
fi

# lzop: the file connectors' lzo tests check their lzop files against the reference tool, both ways.
# lzop and zip: test/conformance/seatunnel-extra.suite.ts makes the lzop files and zip archives
# SeaTunnel's LocalFileIT makes at test time (tar and gzip come with Debian).
# Firebird 3: the Jdbc connector's firebird dialect; libs/launchers starts a private server from
# its binary with a configuration and security database of its own (the package's own service,
# on port 3050, is never used by the tests).
if [ ! -x /usr/sbin/firebird ]; then missing+=(firebird3.0-server); fi
if ! command -v isql-fb >/dev/null 2>&1; then missing+=(firebird3.0-utils); fi

if ! command -v lzop >/dev/null 2>&1; then missing+=(lzop); fi
if ! command -v zip >/dev/null 2>&1; then missing+=(zip); fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "ensure-servers: PostgreSQL (with PostGIS and decoderbufs), MariaDB, Redis, RabbitMQ, Firebird, lzop and zip binaries are present"
  exit 0
fi

exec bash "$(dirname "$0")/apt-install.sh" ensure-servers "${missing[@]}"
