#!/usr/bin/env bash
# apt-install.sh WHO PACKAGE...: installs Debian packages (the ensure-*.sh scripts pass the ones
# they found missing), with sudo when not root. Packages that start a service on install may do
# so; the tests never use those services, they start their own on free ports.
set -euo pipefail
who=$1
shift
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "$who: installing $*"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "$@"
