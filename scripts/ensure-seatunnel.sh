#!/usr/bin/env bash
# Apache SeaTunnel, the oracle of every SeaTunnel comparison (docs/decisions/0045-seatunnel-oracle.md):
# resolves one pinned release from Maven Central with Maven into the cache folder (outside the
# repository) and lays out a SEATUNNEL_HOME there:
#   starter/seatunnel-starter.jar   the starter with the Zeta engine (shaded, as published)
#   lib/                            transforms, the Hadoop uber jar, the starter's and connectors'
#                                   dependencies, JDBC drivers (PostgreSQL, MariaDB, MySQL)
#   connectors/                     connector jars and plugin-mapping.properties
#   config/                         seatunnel.yaml, hazelcast*.yaml, log4j2.properties, taken out of
#                                   the published starter jar
# Prints SEATUNNEL_HOME on its last line. Nothing of SeaTunnel's enters the repository.
# Exit codes: 0 ready, 3 when Maven Central cannot be reached (one line says so), 1 otherwise.
#
# Usage: ensure-seatunnel.sh [version] (or SEATUNNEL_VERSION=...): 2.3.8, the oracle, by default;
# 2.3.4 only for the Postgres-CDC comparison, the one release whose connector-cdc-postgres the
# registry serves (decision 0045). Each version is its own home, seatunnel-<version>.
set -euo pipefail

version="${1:-${SEATUNNEL_VERSION:-2.3.8}}"
cache="${TIDEWAY_CACHE:-$HOME/.cache/tideway}/seatunnel"
home="$cache/seatunnel-$version"
marker="$home/.complete"

# The connectors the comparisons and benchmarks use, per version. Each is published shaded, with a
# reduced pom listing only what it does not carry (connector-common, HikariCP for Jdbc), which goes
# to lib/. connector-cdc-postgres has no 2.3.8 release in the registry (decision 0045): it comes
# with 2.3.4, a whole install of its own, for the Postgres-CDC benchmark job only.
case "$version" in
  2.3.8) connectors=(connector-fake connector-console connector-file-local connector-jdbc connector-kafka) ;;
  2.3.4) connectors=(connector-fake connector-console connector-jdbc connector-cdc-postgres) ;;
  *)
    echo "ensure-seatunnel: no connector list for SeaTunnel $version (known: 2.3.8, 2.3.4)" >&2
    exit 1
    ;;
esac

# The plugin mapping: which connector jar serves which plugin name (the distribution's
# connectors/plugin-mapping.properties), for the connectors above.
plugin_mapping() {
  local c
  for c in "${connectors[@]}"; do
    case "$c" in
      connector-fake) echo 'seatunnel.source.FakeSource = connector-fake' ;;
      connector-console) echo 'seatunnel.sink.Console = connector-console' ;;
      connector-file-local) printf '%s\n' 'seatunnel.source.LocalFile = connector-file-local' 'seatunnel.sink.LocalFile = connector-file-local' ;;
      connector-jdbc) printf '%s\n' 'seatunnel.source.Jdbc = connector-jdbc' 'seatunnel.sink.Jdbc = connector-jdbc' ;;
      connector-kafka) printf '%s\n' 'seatunnel.source.Kafka = connector-kafka' 'seatunnel.sink.Kafka = connector-kafka' ;;
      connector-cdc-postgres) echo 'seatunnel.source.Postgres-CDC = connector-cdc-postgres' ;;
    esac
  done
}

# A pom depending on the given artifacts, one "groupId:artifactId:version[:classifier]" each (one
# with a classifier comes alone, without its dependencies: the Hadoop uber jar carries them).
write_pom() {
  echo '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
  echo '<groupId>tideway.cache</groupId><artifactId>seatunnel-home</artifactId><version>1</version><packaging>pom</packaging><dependencies>'
  local a g n v c
  for a in "$@"; do
    IFS=: read -r g n v c <<<"$a"
    if [ -n "${c:-}" ]; then
      echo "<dependency><groupId>$g</groupId><artifactId>$n</artifactId><version>$v</version><classifier>$c</classifier><exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions></dependency>"
    else
      echo "<dependency><groupId>$g</groupId><artifactId>$n</artifactId><version>$v</version></dependency>"
    fi
  done
  echo '</dependencies></project>'
}

# Resolves $1/pom.xml into $1/jars; when it cannot, says why in one line and exits (3: no registry).
resolve() {
  local work=$1 what=$2
  echo "ensure-seatunnel: resolving $what with Maven (once)" >&2
  if ! (cd "$work" && mvn -B -q dependency:copy-dependencies -DoutputDirectory="$work/jars" -DincludeScope=runtime) > "$work/mvn.log" 2>&1; then
    if grep -q -E "UnknownHostException|Connection refused|connect timed out|Network is unreachable|Could not transfer" "$work/mvn.log"; then
      echo "ensure-seatunnel: Maven Central cannot be reached, so SeaTunnel $version is not available here" >&2
      exit 3
    fi
    echo "ensure-seatunnel: Maven could not resolve $what; its log: $work/mvn.log" >&2
    grep ERROR "$work/mvn.log" | head -3 >&2 || true
    exit 1
  fi
}

if [ -f "$marker" ]; then
  # A home laid out before a connector joined the list gets the missing ones added in place, so
  # runs using the home meanwhile keep their jars: connector jars go to connectors/, what their
  # poms add goes to lib/ unless it is there already.
  wanted=()
  for c in "${connectors[@]}"; do
    [ -f "$home/connectors/$c-$version.jar" ] || wanted+=("org.apache.seatunnel:$c:$version")
  done
  if [ ${#wanted[@]} -gt 0 ]; then
    work="$cache/add-$version-$$"
    rm -rf "$work"
    mkdir -p "$work"
    write_pom "${wanted[@]}" > "$work/pom.xml"
    resolve "$work" "${wanted[*]}"
    for jar in "$work"/jars/*.jar; do
      name=$(basename "$jar")
      case "$name" in
        connector-common-*.jar) [ -f "$home/lib/$name" ] || mv "$jar" "$home/lib/" ;;
        connector-*.jar) mv "$jar" "$home/connectors/" ;;
        *) [ -f "$home/lib/$name" ] || mv "$jar" "$home/lib/" ;;
      esac
    done
    plugin_mapping > "$home/connectors/plugin-mapping.properties.tmp"
    mv "$home/connectors/plugin-mapping.properties.tmp" "$home/connectors/plugin-mapping.properties"
    rm -rf "$work"
  fi
  echo "$home"
  exit 0
fi

# Java 17, Maven and unzip are Debian packages: installed when missing.
missing=()
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "ensure-seatunnel: installing ${missing[*]}" >&2
  { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"; } >&2
fi

mkdir -p "$cache"
work="$cache/resolve-$version"
rm -rf "$work" "$home"
mkdir -p "$work"

artifacts=(
  "org.apache.seatunnel:seatunnel-starter:$version"
  "org.apache.seatunnel:seatunnel-transforms-v2:$version"
  "org.apache.seatunnel:seatunnel-hadoop3-3.1.4-uber:$version:optional"
  org.postgresql:postgresql:42.7.4
  org.mariadb.jdbc:mariadb-java-client:3.4.1
  com.mysql:mysql-connector-j:8.4.0
)
for c in "${connectors[@]}"; do artifacts+=("org.apache.seatunnel:$c:$version"); done
write_pom "${artifacts[@]}" > "$work/pom.xml"
resolve "$work" "SeaTunnel $version (about 160-210 MB)"

staging="$home.partial"
rm -rf "$staging"
mkdir -p "$staging"/{starter,lib,connectors,config,logs}
for jar in "$work"/jars/*.jar; do
  name=$(basename "$jar")
  case "$name" in
    seatunnel-starter-*.jar) mv "$jar" "$staging/starter/seatunnel-starter.jar" ;;
    connector-common-*.jar) mv "$jar" "$staging/lib/" ;;
    connector-*.jar) mv "$jar" "$staging/connectors/" ;;
    *) mv "$jar" "$staging/lib/" ;;
  esac
done

# SeaTunnel's own configuration files, as its starter jar publishes them.
(cd "$staging/config" && unzip -q -o ../starter/seatunnel-starter.jar seatunnel.yaml hazelcast.yaml hazelcast-client.yaml log4j2.properties)

plugin_mapping > "$staging/connectors/plugin-mapping.properties"

echo "$version" > "$staging/.complete"
mv "$staging" "$home"
rm -rf "$work"
echo "$home"
