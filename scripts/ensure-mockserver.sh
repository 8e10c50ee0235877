#!/usr/bin/env bash
# Installs MockServer (Maven Central org.mock-server:mockserver-netty, the jar with its
# dependencies) when missing, into the cache folder outside the repository:
# ${TIDEWAY_CACHE:-$HOME/.cache/tideway}/mockserver/mockserver.jar. SeaTunnel's Http e2e configs
# expect the answers of ../shared/conformance/seatunnel/http/mockserver-config.json from a
# MockServer; the Http tests start one (libs/testing/src/mockserver.ts) with the machine's Java.
# Nothing of it goes into the repository. A registry that cannot be reached is said in one line
# and the script goes on (exit 0): the tests then skip outside CI and fail in CI.
set -uo pipefail
cache="${TIDEWAY_CACHE:-$HOME/.cache/tideway}/mockserver"
mkdir -p "$cache"
MOCKSERVER_VERSION=7.6.0
jar="$cache/mockserver.jar"
if [ -s "$jar" ] && [ "$(cat "$cache/version" 2>/dev/null)" = "$MOCKSERVER_VERSION" ]; then
  exit 0
fi
if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
  echo "ensure-mockserver: Maven or Java is missing: MockServer cannot be fetched"
  exit 0
fi
echo "ensure-mockserver: fetching MockServer $MOCKSERVER_VERSION with Maven"
tmp=$(mktemp -d)
name="mockserver-netty-$MOCKSERVER_VERSION-jar-with-dependencies.jar"
if mvn -q -B dependency:copy -Dartifact="org.mock-server:mockserver-netty:$MOCKSERVER_VERSION:jar:jar-with-dependencies" \
  -DoutputDirectory="$tmp" >"$cache/mvn.log" 2>&1 && [ -s "$tmp/$name" ]; then
  mv "$tmp/$name" "$jar"
  echo "$MOCKSERVER_VERSION" >"$cache/version"
else
  echo "ensure-mockserver: MockServer could not be fetched from Maven Central (the registry cannot be reached?): $(grep -m1 ERROR "$cache/mvn.log")"
fi
rm -rf "$tmp"
exit 0
