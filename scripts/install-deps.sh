#!/usr/bin/env bash
# Installs the Debian packages kraken needs to build and test, only those missing.
# Idempotent: a second run installs nothing. Needs root (or sudo) when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libsimdjson-dev libcli11-dev zlib1g-dev libsqlite3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # HTTP client/server (built with TLS, which the Kubernetes API needs; its headers pull in
  # OpenSSL and Brotli); the Prometheus server and promtool for the cluster-analysis tests,
  # which fail (never skip) without them.
  libcpp-httplib-dev libssl-dev libbrotli-dev prometheus
  # deploy/ manifest and chart checks
  libyaml-cpp-dev
)
# Extra packages a make target needs only for itself (e.g. clang for `make fuzz`).
read -r -a extra <<< "${KRAKEN_DEPS_EXTRA:-}"
packages+=("${extra[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "kraken: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then sudo="sudo"; else
    echo "kraken: error: these packages are missing and installing them needs root: ${missing[*]}" >&2
    exit 2
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
