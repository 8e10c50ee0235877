#!/usr/bin/env bash
# Installs the ORC test peers the ORC tests read and write against, when missing, into the cache
# folder outside the repository (${TIDEWAY_CACHE:-$HOME/.cache/tideway}/orc):
#   - pyarrow (PyPI) in a Python venv: orc/venv/bin/python
#   - Apache ORC's tools (Maven Central org.apache.orc:orc-tools, the uber jar): orc/orc-tools.jar,
#     run with the machine's Java 17 (`java -jar orc-tools.jar meta|data file.orc`).
# Nothing of theirs goes into the repository. A registry that cannot be reached is said in one
# line and the script goes on (exit 0): the tests that need a peer then skip outside CI and fail
# in CI (libs/testing/src/orc-peers.ts).
set -uo pipefail
cache="${TIDEWAY_CACHE:-$HOME/.cache/tideway}/orc"
mkdir -p "$cache"
PYARROW_VERSION=26.0.1
ORC_TOOLS_VERSION=2.1.2

venv="$cache/venv"
if ! "$venv/bin/python" -c "import pyarrow.orc" >/dev/null 2>&1; then
  python=$(command -v python3 || true)
  if [ -z "$python" ]; then
    echo "ensure-orc-peers: no python3 on this machine: pyarrow cannot be installed"
  else
    echo "ensure-orc-peers: installing pyarrow $PYARROW_VERSION into $venv"
    rm -rf "$venv"
    if ! { "$python" -m venv "$venv" && "$venv/bin/python" -m pip install -q --disable-pip-version-check "pyarrow==$PYARROW_VERSION"; } >"$cache/pip.log" 2>&1; then
      echo "ensure-orc-peers: pyarrow could not be installed from PyPI (the registry cannot be reached?): $(tail -1 "$cache/pip.log")"
      rm -rf "$venv"
    fi
  fi
fi

jar="$cache/orc-tools.jar"
if [ ! -s "$jar" ]; then
  if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
    echo "ensure-orc-peers: Maven or Java is missing: orc-tools cannot be fetched"
  else
    echo "ensure-orc-peers: fetching orc-tools $ORC_TOOLS_VERSION (uber jar) with Maven"
    tmp=$(mktemp -d)
    if mvn -q -B dependency:copy -Dartifact="org.apache.orc:orc-tools:$ORC_TOOLS_VERSION:jar:uber" -DoutputDirectory="$tmp" \
      >"$cache/mvn.log" 2>&1 && [ -s "$tmp/orc-tools-$ORC_TOOLS_VERSION-uber.jar" ]; then
      mv "$tmp/orc-tools-$ORC_TOOLS_VERSION-uber.jar" "$jar"
    else
      echo "ensure-orc-peers: orc-tools could not be fetched from Maven Central (the registry cannot be reached?): $(grep -m1 ERROR "$cache/mvn.log")"
    fi
    rm -rf "$tmp"
  fi
fi
exit 0
