#!/bin/sh
# libkraken.so exports exactly the functions kraken.h declares, each under the version node
# KRAKEN_0, and nothing else (no C++ symbol of kraken, simdjson or fmt can leak out).
# Usage: check_exports.sh LIBRARY HEADER
set -eu
lib=$1
header=$2
# GNU ld also defines the version node itself as an absolute symbol (KRAKEN_0); lld does not.
exported=$(nm -D --defined-only "$lib" | awk '$3 != "KRAKEN_0" {print $3}' | sort)
declared=$(sed -n 's/^KRAKEN_API [^(]*[ *]\(kraken_[a-z_]*\)(.*/\1/p' "$header" | sort)
expected=$(for f in $declared; do echo "$f@@KRAKEN_0"; done | sort)
if [ "$exported" != "$expected" ]; then
  echo "exported symbols differ from the header's functions:" >&2
  printf '%s\n' "$exported" > "${TMPDIR:-/tmp}/kraken_exported.$$"
  printf '%s\n' "$expected" | diff - "${TMPDIR:-/tmp}/kraken_exported.$$" >&2 || true
  rm -f "${TMPDIR:-/tmp}/kraken_exported.$$"
  exit 1
fi
count=$(printf '%s\n' "$declared" | wc -l)
[ "$count" -ge 24 ] || { echo "only $count functions declared" >&2; exit 1; }
echo "$count functions exported, nothing else"
