#!/usr/bin/env bash
# Resolves Apache Kafka (the broker, its storage and tools modules, with their dependencies) from
# Maven Central into ${TIDEWAY_CACHE:-$HOME/.cache/tideway}/kafka/libs, outside the repository,
# for the tests and benches that start private KRaft brokers (libs/testing/src/kafka.ts). A small
# pom is generated into that folder and `mvn dependency:copy-dependencies` copies the jars. Does
# nothing when the jars are there. Installs Maven (and with it a JDK) from Debian when missing.
# When the registry cannot be reached it says so in one line and exits 1: the Kafka tests then
# skip (outside CI) or fail (CI=true).
set -euo pipefail
KAFKA_VERSION=4.1.1
LOG4J_VERSION=2.24.3
cache="${TIDEWAY_CACHE:-$HOME/.cache/tideway}/kafka"
libs="$cache/libs"
stamp="$libs/.complete-$KAFKA_VERSION"
[ -f "$stamp" ] && exit 0
cd "$(dirname "$0")/.."
missing=()
command -v mvn >/dev/null 2>&1 || missing+=(maven)
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
# The shared test broker's TLS listeners get their certificates from openssl (libs/testing/src/kafka.ts).
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then bash scripts/apt-install.sh ensure-kafka "${missing[@]}"; fi
mkdir -p "$cache"
cat > "$cache/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>tideway.testpeer</groupId>
  <artifactId>kafka-broker</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
POM
echo "ensure-kafka: resolving Apache Kafka $KAFKA_VERSION into $libs"
rm -rf "$libs.tmp"
if ! out=$(mvn -q -B -f "$cache/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$libs.tmp" 2>&1); then
  echo "ensure-kafka: could not resolve org.apache.kafka:kafka_2.13:$KAFKA_VERSION from Maven Central ($(echo "$out" | grep -m1 -E 'ERROR' | sed 's/\x1b\[[0-9;]*m//g' | cut -c1-200))" >&2
  rm -rf "$libs.tmp"
  exit 1
fi
rm -rf "$libs"
mv "$libs.tmp" "$libs"
touch "$stamp"
