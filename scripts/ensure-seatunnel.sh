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
set -euo pipefail

version=2.3.8
cache="${TIDEWAY_CACHE:-$HOME/.cache/tideway}/seatunnel"
home="$cache/seatunnel-$version"
marker="$home/.complete"

if [ -f "$marker" ]; then
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

# The connectors the comparisons use. Each is published shaded, with a reduced pom listing only
# what it does not carry (connector-common, HikariCP for Jdbc), which goes to lib/.
connectors=(connector-fake connector-console connector-file-local connector-jdbc)
{
  cat <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>tideway.cache</groupId>
  <artifactId>seatunnel-home</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.seatunnel</groupId><artifactId>seatunnel-starter</artifactId><version>$version</version></dependency>
    <dependency><groupId>org.apache.seatunnel</groupId><artifactId>seatunnel-transforms-v2</artifactId><version>$version</version></dependency>
    <dependency>
      <groupId>org.apache.seatunnel</groupId><artifactId>seatunnel-hadoop3-3.1.4-uber</artifactId><version>$version</version><classifier>optional</classifier>
      <exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>
    </dependency>
    <dependency><groupId>org.postgresql</groupId><artifactId>postgresql</artifactId><version>42.7.4</version></dependency>
    <dependency><groupId>org.mariadb.jdbc</groupId><artifactId>mariadb-java-client</artifactId><version>3.4.1</version></dependency>
    <dependency><groupId>com.mysql</groupId><artifactId>mysql-connector-j</artifactId><version>8.4.0</version></dependency>
EOF
  for c in "${connectors[@]}"; do
    echo "    <dependency><groupId>org.apache.seatunnel</groupId><artifactId>$c</artifactId><version>$version</version></dependency>"
  done
  cat <<EOF
  </dependencies>
</project>
EOF
} > "$work/pom.xml"

echo "ensure-seatunnel: resolving SeaTunnel $version with Maven (once; about 180 MB)" >&2
if ! (cd "$work" && mvn -B -q dependency:copy-dependencies -DoutputDirectory="$work/jars" -DincludeScope=runtime) > "$work/mvn.log" 2>&1; then
  if grep -q -E "UnknownHostException|Connection refused|connect timed out|Network is unreachable|Could not transfer" "$work/mvn.log"; then
    echo "ensure-seatunnel: Maven Central cannot be reached, so SeaTunnel $version is not available here" >&2
    exit 3
  fi
  echo "ensure-seatunnel: Maven could not resolve SeaTunnel $version; its log: $work/mvn.log" >&2
  grep ERROR "$work/mvn.log" | head -3 >&2 || true
  exit 1
fi

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

# The plugin mapping: which connector jar serves which plugin name (the distribution's
# connectors/plugin-mapping.properties, for the connectors above).
cat > "$staging/connectors/plugin-mapping.properties" <<'EOF'
seatunnel.source.FakeSource = connector-fake
seatunnel.sink.Console = connector-console
seatunnel.source.LocalFile = connector-file-local
seatunnel.sink.LocalFile = connector-file-local
seatunnel.source.Jdbc = connector-jdbc
seatunnel.sink.Jdbc = connector-jdbc
EOF

echo "$version" > "$staging/.complete"
mv "$staging" "$home"
rm -rf "$work"
echo "$home"
