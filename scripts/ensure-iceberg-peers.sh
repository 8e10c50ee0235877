#!/usr/bin/env bash
# Installs the Iceberg tests' reader, when missing, into the cache folder outside the repository
# (${TIDEWAY_CACHE:-$HOME/.cache/tideway}/iceberg): PyIceberg (PyPI) with pyarrow (to read data
# files), SQLAlchemy and psycopg2 (its SqlCatalog on the tests' own PostgreSQL) in a Python venv,
# iceberg/venv/bin/python. Nothing of theirs goes into the repository. A registry that cannot be
# reached is said in one line and the script goes on (exit 0): the tests that need PyIceberg then
# skip outside CI and fail in CI (libs/testing/src/iceberg-peers.ts).
set -uo pipefail
cache="${TIDEWAY_CACHE:-$HOME/.cache/tideway}/iceberg"
mkdir -p "$cache"
PYICEBERG_VERSION=0.12.0
PYARROW_VERSION=26.0.1
SQLALCHEMY_VERSION=2.0.43
PSYCOPG2_VERSION=2.9.13

venv="$cache/venv"
if ! "$venv/bin/python" -c "import pyiceberg.catalog.sql, pyarrow, psycopg2" >/dev/null 2>&1; then
  python=$(command -v python3 || true)
  if [ -z "$python" ]; then
    echo "ensure-iceberg-peers: no python3 on this machine: PyIceberg cannot be installed"
  else
    echo "ensure-iceberg-peers: installing PyIceberg $PYICEBERG_VERSION into $venv"
    rm -rf "$venv"
    if ! { "$python" -m venv "$venv" && "$venv/bin/python" -m pip install -q --disable-pip-version-check \
      "pyiceberg[sql-postgres,pyarrow]==$PYICEBERG_VERSION" "pyarrow==$PYARROW_VERSION" \
      "sqlalchemy==$SQLALCHEMY_VERSION" "psycopg2-binary==$PSYCOPG2_VERSION"; } >"$cache/pip.log" 2>&1; then
      echo "ensure-iceberg-peers: PyIceberg could not be installed from PyPI (the registry cannot be reached?): $(tail -1 "$cache/pip.log")"
      rm -rf "$venv"
    fi
  fi
fi
exit 0
