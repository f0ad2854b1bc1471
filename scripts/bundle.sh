#!/usr/bin/env bash
# `make bundle`: a relocatable kraken for machines without Debian's -dev packages (other
# distributions, GPU machines with only a driver and Python):
#   dist/kraken-VERSION-linux-x86_64.tar.gz
#     kraken-VERSION/bin/kraken             RUNPATH $ORIGIN/../lib
#     kraken-VERSION/lib/libkraken.so.0     the C API (libkraken.so links to it), RUNPATH $ORIGIN
#     kraken-VERSION/lib/libkraken_cupti.so the CUPTI kernel tracer (built where CUDA's headers are)
#     kraken-VERSION/lib/libkraken_nvml_replay.so  NVML answered from a capture (docs/nvml-capture-format.md)
#     kraken-VERSION/lib/*.so.*             every shared library those need beyond glibc and
#                                           libstdc++/libgcc, each with RUNPATH $ORIGIN
#     kraken-VERSION/python/kraken/         the Python package (finds ../../lib/libkraken.so.0)
# Usage: scripts/bundle.sh BUILD_DIR [DIST_DIR]
set -euo pipefail
build=$(cd "${1:?usage: bundle.sh BUILD_DIR [DIST_DIR]}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
dist=${2:-$root/dist}
version=$(sed -n 's/^project(kraken VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
name="kraken-$version"
tarball="$dist/$name-linux-$(uname -m).tar.gz"
command -v patchelf >/dev/null || { echo "kraken: error: patchelf is missing (scripts/install-deps.sh)" >&2; exit 2; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
top="$stage/$name"
mkdir -p "$top/bin" "$top/lib"

kraken="$build/src/cli/kraken"
[ -x "$kraken" ] || { echo "kraken: error: $kraken is missing (make build)" >&2; exit 2; }
install -m 755 "$kraken" "$top/bin/kraken"
# kraken's own libraries, where this build made them (the tracer needs CUDA's headers).
ours=()
# (The tracer is built beside the kraken binary, where `kraken profile --kernels` looks.)
for lib in "$build"/src/capi/libkraken.so.0 "$build"/src/cli/libkraken_cupti.so \
           "$build"/src/collectors/nvml/libkraken_nvml_replay.so; do
  [ -f "$lib" ] || continue
  install -m 755 "$(readlink -f "$lib")" "$top/lib/$(basename "$lib")"
  ours+=("$top/lib/$(basename "$lib")")
done
[ -f "$top/lib/libkraken.so.0" ] && ln -s libkraken.so.0 "$top/lib/libkraken.so"

# What the system always provides: glibc's libraries, the dynamic loader, the C++ runtime.
is_system_library() {
  case "$1" in
    linux-vdso.so.*|ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libutil.so.*|\
    libresolv.so.*|libanl.so.*|libstdc++.so.*|libgcc_s.so.*) return 0 ;;
  esac
  return 1
}
# Copies every library the ELF files need (ldd resolves the whole closure) into lib/.
copy_needed_libraries() {
  ldd "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $1 "\t" $3 } $2 == "=>" && $3 == "not" { print $1 "\tMISSING" }' |
    sort -u | while IFS=$'\t' read -r soname path; do
      is_system_library "$soname" && continue
      [ "$path" = MISSING ] && { echo "kraken: error: $soname, needed by the bundle, is not installed" >&2; exit 2; }
      [ -e "$top/lib/$soname" ] || install -m 644 "$(readlink -f "$path")" "$top/lib/$soname"
    done
}
copy_needed_libraries "$top/bin/kraken" "${ours[@]}"

# Find each other through RUNPATH, wherever the folder is unpacked; strip what only a
# debugger reads.
strip --strip-unneeded "$top/bin/kraken" "$top"/lib/*.so*
patchelf --set-rpath '$ORIGIN/../lib' "$top/bin/kraken"
for lib in "$top"/lib/*.so*; do
  [ -L "$lib" ] || patchelf --set-rpath '$ORIGIN' "$lib"
done

if [ -d "$build/python/kraken" ]; then
  mkdir -p "$top/python"
  cp -r "$build/python/kraken" "$top/python/"
  # The package loads the bundle's lib/libkraken.so.0 (so that its RUNPATH finds the
  # libraries beside it), not a copy of its own.
  rm -f "$top"/python/kraken/libkraken.so*
  find "$top/python" -name __pycache__ -prune -exec rm -rf {} +
fi
cat > "$top/README" <<EOF
kraken $version, a relocatable build for Linux $(uname -m) (glibc >= $(ldd --version | sed -n '1s/.* //p'), libstdc++ of GCC >= 12).
  bin/kraken --help                  the command line (docs: https://github.com/kraken-profiler/kraken)
  PYTHONPATH=\$PWD/python python3 -c 'import kraken'     the Python package (CPython >= 3.8)
  CUDA_INJECTION64_PATH=\$PWD/lib/libkraken_cupti.so     kernel capture of any CUDA program (docs/kernel-capture.md)
EOF

mkdir -p "$dist"
tar -C "$stage" -czf "$tarball.tmp" "$name"
mv "$tarball.tmp" "$tarball"
size=$(du -m "$tarball" | cut -f1)
echo "kraken: wrote $tarball ($size MiB; $(ls "$top/lib" | wc -l) libraries)"
