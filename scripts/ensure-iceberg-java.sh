#!/usr/bin/env bash
# Installs the Iceberg tests' JVM peer when missing, into the cache folder outside the repository
# (${TIDEWAY_CACHE:-$HOME/.cache/tideway}/iceberg-java): Apache Iceberg's Java library from Maven
# Central (iceberg-core with its test jar, which holds the REST catalog servlet and adapter;
# iceberg-data with iceberg-parquet and iceberg-orc (its generic reader registers both formats),
# which read tables applying deletes; iceberg-aws for S3), with
# Hadoop's client, Jetty, the PostgreSQL and SQLite drivers and the AWS SDK's S3 client (with KMS and STS,
# which Iceberg's AWS properties load) (libs/), and the
# project's launcher (libs/testing/java/IcebergPeer.java, compiled into classes-<its hash>/): one JVM that
# serves a REST catalog and reads tables for the tests (libs/testing/src/iceberg-java.ts).
# Iceberg 1.11.0: the newest release whose REST catalog test classes Maven Central serves.
# Nothing of theirs goes into the repository. A registry that cannot be reached is said in one
# line and the script goes on (exit 0): the tests then skip outside CI and fail in CI.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache="${TIDEWAY_CACHE:-$HOME/.cache/tideway}/iceberg-java"
ICEBERG_VERSION=1.11.0
HADOOP_VERSION=3.4.1
JETTY_VERSION=12.0.16
AWS_SDK_VERSION=2.29.52
mkdir -p "$cache"
# the launcher's classes go into a folder of its own source's hash: checkouts of different
# launchers sharing the cache folder each find their own
launcher=$(sha1sum "$here/libs/testing/java/IcebergPeer.java" | cut -c1-12)
classes="$cache/classes-$launcher"
stamp="$cache/.complete-$ICEBERG_VERSION-$launcher"
[ -f "$stamp" ] && [ -f "$classes/IcebergPeer.class" ] && exit 0
if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
  echo "ensure-iceberg-java: Maven or a JDK is missing: Iceberg's Java peer cannot be built"
  exit 0
fi
if ! ls "$cache"/.libs-$ICEBERG_VERSION >/dev/null 2>&1; then
  echo "ensure-iceberg-java: fetching Iceberg $ICEBERG_VERSION's Java library with Maven"
  tmp=$(mktemp -d)
  dep() { echo "<dependency><groupId>$1</groupId><artifactId>$2</artifactId><version>$3</version>${4:+<classifier>$4</classifier>}</dependency>"; }
  cat >"$tmp/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>tideway</groupId><artifactId>iceberg-peer</artifactId><version>1</version>
  <dependencies>
    $(dep org.apache.iceberg iceberg-core $ICEBERG_VERSION)
    $(dep org.apache.iceberg iceberg-core $ICEBERG_VERSION tests)
    $(dep org.apache.iceberg iceberg-data $ICEBERG_VERSION)
    $(dep org.apache.iceberg iceberg-parquet $ICEBERG_VERSION)
    $(dep org.apache.iceberg iceberg-orc $ICEBERG_VERSION)
    $(dep org.apache.iceberg iceberg-aws $ICEBERG_VERSION)
    $(dep software.amazon.awssdk s3 $AWS_SDK_VERSION)
    $(dep software.amazon.awssdk kms $AWS_SDK_VERSION)
    $(dep software.amazon.awssdk sts $AWS_SDK_VERSION)
    $(dep software.amazon.awssdk url-connection-client $AWS_SDK_VERSION)
    $(dep software.amazon.awssdk apache-client $AWS_SDK_VERSION)
    $(dep org.apache.hadoop hadoop-client-api $HADOOP_VERSION)
    $(dep org.apache.hadoop hadoop-client-runtime $HADOOP_VERSION)
    $(dep org.eclipse.jetty.ee10 jetty-ee10-servlet $JETTY_VERSION)
    $(dep org.postgresql postgresql 42.7.4)
    $(dep org.xerial sqlite-jdbc 3.47.1.0)
    $(dep org.slf4j slf4j-nop 2.0.16)
  </dependencies>
</project>
POM
  rm -rf "$cache/libs" "$cache"/.libs-* "$cache"/.complete-*
  if ! (cd "$tmp" && mvn -q -B dependency:copy-dependencies -DoutputDirectory="$cache/libs" -DincludeScope=runtime >"$cache/mvn.log" 2>&1); then
    echo "ensure-iceberg-java: Iceberg's Java library could not be fetched from Maven Central (the registry cannot be reached?): $(grep -m1 ERROR "$cache/mvn.log")"
    rm -rf "$tmp"
    exit 0
  fi
  rm -rf "$tmp"
  touch "$cache/.libs-$ICEBERG_VERSION"
fi
tmp=$(mktemp -d "$cache/classes-tmp.XXXXXX")
if ! javac -cp "$cache/libs/*" -d "$tmp" "$here/libs/testing/java/IcebergPeer.java" >"$tmp.log" 2>&1; then
  echo "ensure-iceberg-java: the launcher does not compile: $(head -1 "$tmp.log")"
  rm -rf "$tmp" "$tmp.log"
  exit 0
fi
rm -rf "$classes" "$tmp.log"
mv "$tmp" "$classes"
touch "$stamp"
exit 0
