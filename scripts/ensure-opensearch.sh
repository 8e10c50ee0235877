#!/usr/bin/env bash
# Installs the OpenSearch test peer when missing, into the cache folder outside the repository
# (${TIDEWAY_CACHE:-$HOME/.cache/tideway}/opensearch): OpenSearch's server jar and its netty4
# transport from Maven Central, with their dependencies (libs/), and the project's launcher
# (libs/testing/java/OpenSearchPeer.java, compiled into classes/). The Elasticsearch tests start
# a node with them (libs/testing/src/opensearch.ts) on the machine's Java 17. Nothing of
# OpenSearch goes into the repository. A registry that cannot be reached is said in one line and
# the script goes on (exit 0): the tests then skip outside CI and fail in CI.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache="${TIDEWAY_CACHE:-$HOME/.cache/tideway}/opensearch"
OPENSEARCH_VERSION=2.19.6
mkdir -p "$cache"
stamp="$cache/.complete-$OPENSEARCH_VERSION-$(sha1sum "$here/libs/testing/java/OpenSearchPeer.java" | cut -c1-12)"
[ -f "$stamp" ] && exit 0
if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
  echo "ensure-opensearch: Maven or a JDK is missing: the OpenSearch peer cannot be built"
  exit 0
fi
echo "ensure-opensearch: fetching OpenSearch $OPENSEARCH_VERSION with Maven"
tmp=$(mktemp -d)
cat >"$tmp/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>tideway</groupId><artifactId>opensearch-peer</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.opensearch</groupId><artifactId>opensearch</artifactId><version>$OPENSEARCH_VERSION</version></dependency>
    <dependency><groupId>org.opensearch.plugin</groupId><artifactId>transport-netty4-client</artifactId><version>$OPENSEARCH_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>2.25.4</version></dependency>
  </dependencies>
</project>
POM
rm -rf "$cache/libs" "$cache/classes" "$cache"/.complete-*
if ! (cd "$tmp" && mvn -q -B dependency:copy-dependencies -DoutputDirectory="$cache/libs" -DincludeScope=runtime >"$cache/mvn.log" 2>&1); then
  echo "ensure-opensearch: OpenSearch could not be fetched from Maven Central (the registry cannot be reached?): $(grep -m1 ERROR "$cache/mvn.log")"
  rm -rf "$tmp"
  exit 0
fi
rm -rf "$tmp"
mkdir -p "$cache/classes"
if ! javac -cp "$cache/libs/*" -d "$cache/classes" "$here/libs/testing/java/OpenSearchPeer.java" >"$cache/javac.log" 2>&1; then
  echo "ensure-opensearch: the launcher does not compile: $(head -1 "$cache/javac.log")"
  exit 0
fi
touch "$stamp"
exit 0
