#!/usr/bin/env bash
# Runs the bundle where none of Debian's -dev packages or kraken's libraries exist: in a
# minimal Debian root (debootstrap --variant=minbase, plus python3) kept outside the clone
# between runs ($KRAKEN_MINBASE_ROOT, default ~/.cache/kraken/minbase-bookworm).
# Checks: `kraken analyze --json` on a real trace prints the same bytes as the build it came
# from; the Python package imports with that root's python3 and gives the same figures;
# the bundle is under 60 MiB.
# Usage: scripts/bundle_test.sh TARBALL BUILD_DIR   (needs root: debootstrap and chroot)
set -euo pipefail
tarball=$(readlink -f "${1:?usage: bundle_test.sh TARBALL BUILD_DIR}")
build=$(cd "${2:?usage: bundle_test.sh TARBALL BUILD_DIR}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
data=${KRAKEN_DATA_DIR:-$root/../shared/data}
minbase=${KRAKEN_MINBASE_ROOT:-$HOME/.cache/kraken/minbase-bookworm}
trace="$data/kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
fail() { echo "bundle_test: FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || { echo "bundle_test: error: needs root (debootstrap, chroot)" >&2; exit 2; }
[ -f "$trace" ] || { echo "bundle_test: error: $trace is missing (KRAKEN_DATA_DIR)" >&2; exit 2; }
size=$(stat -c %s "$tarball")
[ "$size" -lt $((60 * 1024 * 1024)) ] || fail "$tarball is $((size / 1048576)) MiB (target < 60 MiB)"

if [ ! -x "$minbase/usr/bin/python3" ]; then
  # The machine's own Debian mirror (deb822 or one-line sources; either file may be absent).
  mirror=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
             sed -n 's/^URIs: *//p; s/^deb \(http[^ ]*\) bookworm .*/\1/p' | grep -v security | head -1 || true)
  echo "bundle_test: creating the minimal Debian root $minbase (once) from ${mirror:=http://deb.debian.org/debian}"
  rm -rf "$minbase.partial"
  mkdir -p "$(dirname "$minbase")"
  debootstrap --variant=minbase --include=python3 bookworm "$minbase.partial" "$mirror" > "$minbase.log" 2>&1 ||
    { tail -20 "$minbase.log" >&2; echo "bundle_test: error: debootstrap failed (log: $minbase.log)" >&2; exit 2; }
  mv "$minbase.partial" "$minbase"
fi
# The root must not hold what the bundle is meant to carry.
for lib in libsimdjson.so.14 libyaml-cpp.so.0.7 libcpp-httplib.so.0.11 libgrpc++.so.1.51 libprotobuf.so.32; do
  if chroot "$minbase" sh -c "ls /usr/lib/*/$lib /lib/*/$lib" >/dev/null 2>&1; then
    fail "the minimal root has $lib, so it cannot show that the bundle carries it"
  fi
done
if chroot "$minbase" dpkg-query -W -f '${Package}\n' | grep -- '-dev$'; then fail "the minimal root has -dev packages"; fi

work="$minbase/tmp/kraken-bundle-test"
rm -rf "$work"
mkdir -p "$work"
# /proc as on any running system: the loader finds the program's own folder ($ORIGIN in its
# RUNPATH) through /proc/self/exe.
mountpoint -q "$minbase/proc" || mount -t proc proc "$minbase/proc"
trap 'rm -rf "$work"; umount "$minbase/proc" 2>/dev/null || true' EXIT
tar -C "$work" -xzf "$tarball"
top=$(cd "$work" && ls -d kraken-*)
cp "$trace" "$work/trace.json.gz"

inside="/tmp/kraken-bundle-test"
# Both read the same copy under the same relative name (the document names its source).
chroot "$minbase" sh -c "cd $inside && $top/bin/kraken analyze trace.json.gz --json" > "$work/bundle.json" ||
  fail "kraken analyze failed in the minimal root"
(cd "$work" && "$build/src/cli/kraken" analyze trace.json.gz --json) > "$work/build.json"
if ! cmp -s "$work/bundle.json" "$work/build.json"; then
  diff <(tr ',' '\n' < "$work/bundle.json") <(tr ',' '\n' < "$work/build.json") | head -10 >&2
  fail "the bundle's analyze --json differs from the build's"
fi
echo "bundle_test: ok: kraken analyze --json in the minimal root equals the build's ($(wc -c < "$work/build.json") bytes)"

if [ -d "$work/$top/python/kraken" ]; then
  script="import json, sys; sys.path.insert(0, '$inside/$top/python'); import kraken
print(json.dumps({'version': kraken.__version__, 'library': kraken.library_path(),
                  'analysis': kraken.analyze('trace.json.gz').to_dict()}))"
  chroot "$minbase" sh -c "cd $inside && python3 -c \"\$0\"" "$script" > "$work/python.json" || fail "the Python package failed in the minimal root"
  python_version=$(chroot "$minbase" python3 --version)
  /usr/bin/python3 - "$work/python.json" "$work/build.json" <<'PY' || fail "the Python package's analysis differs from the CLI's"
import json, sys
got = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))
if not got["library"].endswith("/lib/libkraken.so.0"):
    sys.exit(f"the package loaded {got['library']}, not the bundle's lib/libkraken.so.0")
sys.exit(0 if got["analysis"] == want else 1)
PY
  echo "bundle_test: ok: the Python package under the root's $python_version gives the CLI's analysis"
else
  fail "the bundle has no python/kraken"
fi
# deploy/Dockerfile builds the image from this tarball: the archive it adds, the folder it
# links and the entrypoint must be the bundle's, and its version the manifests' image tag.
check_dockerfile() {
  local dockerfile=$root/deploy/Dockerfile version arch added entry
  version=$(sed -n 's/^ARG VERSION=//p' "$dockerfile")
  arch=$(sed -n 's/^ARG ARCH=//p' "$dockerfile")
  added=$(sed -n 's/^ADD \([^ ]*\) .*/\1/p' "$dockerfile" | sed "s/\${VERSION}/$version/g; s/\${ARCH}/$arch/g")
  [ "$added" = "$(basename "$tarball")" ] || fail "deploy/Dockerfile adds $added, the bundle is $(basename "$tarball")"
  grep -q "^RUN ln -s /opt/kraken-\${VERSION} /opt/kraken$" "$dockerfile" || fail "deploy/Dockerfile does not link /opt/kraken"
  entry=$(sed -n 's/^ENTRYPOINT \["\/opt\/kraken\/\([^"]*\)"\]/\1/p' "$dockerfile")
  [ -x "$work/$top/$entry" ] || fail "deploy/Dockerfile's entrypoint /opt/kraken/$entry is not in the bundle"
  for dir in bin python; do
    grep -q "/opt/kraken/$dir" "$dockerfile" && [ ! -d "$work/$top/$dir" ] && fail "the bundle has no $dir/ for the image's environment"
  done
  local tag
  for f in "$root"/deploy/kubernetes/*.yaml; do
    for tag in $(sed -n 's/.*image: ghcr.io\/kraken-profiler\/kraken:\([^ ]*\).*/\1/p' "$f"); do
      [ "$tag" = "$version" ] || fail "$f runs image tag $tag, deploy/Dockerfile builds $version"
    done
  done
  tag=$(sed -n 's/^  tag: "\(.*\)"/\1/p' "$root/deploy/helm/kraken/values.yaml")
  [ "$tag" = "$version" ] || fail "the Helm chart runs image tag $tag, deploy/Dockerfile builds $version"
  echo "bundle_test: ok: deploy/Dockerfile adds $added, enters /opt/kraken/$entry; manifests and chart run tag $version"
}
# Where the build has the CUPTI tracer, the bundle carries it and its kraken finds it:
# `profile --kernels` (NVML replayed) runs a command that never starts CUDA and says so.
if [ -f "$build/src/cli/libkraken_cupti.so" ]; then
  [ -f "$work/$top/lib/libkraken_cupti.so" ] || fail "the build has libkraken_cupti.so, the bundle's lib/ does not"
  cp "$root/tests/fixtures/nvml/h100.nvml" "$work/h100.nvml"
  chroot "$minbase" sh -c "cd $inside && KRAKEN_NVML_LIBRARY=$inside/$top/lib/libkraken_nvml_replay.so \
    KRAKEN_NVML_REPLAY=h100.nvml $top/bin/kraken profile --kernels --no-store --samples 2 -- true" > "$work/kernels.txt" ||
    fail "kraken profile --kernels failed in the minimal root"
  grep -q "no process of the command initialized CUDA" "$work/kernels.txt" ||
    fail "kraken profile --kernels in the minimal root: $(grep kernels "$work/kernels.txt")"
  echo "bundle_test: ok: lib/libkraken_cupti.so is in the bundle and its kraken profile --kernels finds it"
fi
check_dockerfile
echo "bundle_test: ok: $(basename "$tarball") is $((size / 1048576)) MiB (target < 60 MiB)"
