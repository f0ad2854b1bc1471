#!/usr/bin/env bash
# Installs the Debian packages kraken needs to build and test, only those missing.
# Idempotent: a second run installs nothing. Needs root (or sudo) when something is missing.
#   scripts/install-deps.sh [--with GROUP]...   GROUP: fuzz (clang for `make fuzz`)
#   scripts/install-deps.sh --print-packages    every package of every group, for
#                                               scripts/check-deps.sh; installs nothing
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  # Every build reuses earlier compilations of the same code (CI included): cache outside
  # the clone, in $CCACHE_DIR or ~/.cache/ccache.
  ccache
  # The linker (CMakeLists.txt: linking is most of a build whose compilations ccache serves).
  lld
  libsimdjson-dev libcli11-dev libfmt-dev zlib1g-dev libsqlite3-dev
  libcpp-httplib-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # The Python package's tests (python/tests) run with Debian's python3 and pytest; the
  # packaging test makes a venv (python3-venv) and pip-installs build/python into it; mypy
  # checks the package's type hints (python_typing_test).
  python3 python3-pytest python3-venv mypy
  nodejs chromium
  # The agent's exporter and the cluster-analysis tests run a real Prometheus server (and
  # promtool); they fail (never skip) without it.
  prometheus
  # make bench measures the agent's scrapes/s and the server's requests/s with it.
  wrk
  # Debian's cpp-httplib is built with TLS (the Kubernetes API needs it): its headers pull in
  # OpenSSL and Brotli.
  libssl-dev libbrotli-dev
  # Pod attribution: the agent's client of the kubelet's pod-resources gRPC API; the C++ is
  # generated from src/k8s/attribution/pod_resources/kubelet_pod_resources.proto at build time.
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  # make bundle sets each bundled library's RUNPATH; its test runs the bundle in a minimal
  # Debian root made with debootstrap.
  patchelf debootstrap
  # The PostgreSQL store (docs/store.md): libpq to talk to it; its tests start a real server
  # from the postgresql package on loopback in a temporary data folder.
  libpq-dev postgresql
)
# Packages a make target needs only for itself.
fuzz_packages=(clang libclang-rt-14-dev)

with=()
while [ $# -gt 0 ]; do
  case "$1" in
    --print-packages) echo "${packages[*]} ${fuzz_packages[*]}"; exit 0 ;;
    --with) with+=("$2"); shift 2 ;;
    *) echo "kraken: error: install-deps.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
for group in "${with[@]}"; do
  case "$group" in
    fuzz) packages+=("${fuzz_packages[@]}") ;;
    *) echo "kraken: error: install-deps.sh: unknown group $group (known: fuzz)" >&2; exit 2 ;;
  esac
done
# The dashboard bundle needs npm; NodeSource's nodejs package ships its own npm (and
# conflicts with Debian's), so Debian's npm is installed only when no npm is found.
command -v npm >/dev/null || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
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
fi

# playwright-core (the browser tests) needs Node.js >= 20: Debian 12 ships 18.20, Debian 13
# ships 20. On Debian 12 install nodejs 20 from NodeSource (deb.nodesource.com, node_20.x).
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "kraken: error: Node.js >= 20 is needed for the browser tests (found $(node --version 2>/dev/null || echo none)); on Debian 12 install nodejs 20 from NodeSource" >&2
  exit 2
fi
