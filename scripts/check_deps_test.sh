#!/usr/bin/env bash
# Tests of scripts/check-deps.sh on made-up used-file lists and npm projects: a package that
# nothing installs, a file no package owns and an undeclared npm package each fail, naming
# what is wrong; packages reached through install-deps.sh's dependency closure, a fresh
# machine's packages and alternatives links pass.
set -uo pipefail
check="$(cd "$(dirname "$0")" && pwd)/check-deps.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect NAME WANT_RC PATTERN -- ARGS...: runs the check, compares its exit code and output.
expect() {
  local name=$1 want=$2 pattern=$3; shift 4
  local out rc
  out=$("$check" "$@" 2>&1); rc=$?
  if [ "$rc" != "$want" ] || ! grep -qE -- "$pattern" <<< "$out"; then
    echo "FAIL $name: exit $rc (want $want), output:"; sed 's/^/    /' <<< "$out"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

mkdir -p "$work/web"
echo '{"name":"t","dependencies":{"echarts":"6.1.0"}}' > "$work/web/package.json"
echo "import * as echarts from 'echarts'; import fs from 'node:fs';" > "$work/web/ok.mjs"

printf '/usr/include/simdjson.h\n/usr/include/fmt/core.h\n' > "$work/fmt"
expect "a package nothing installs is named" 1 "package libfmt-dev \(e\.g\. /usr/include/fmt/core\.h\)" -- \
  --used-files "$work/fmt" --packages "libsimdjson-dev" --web "$work/web"
expect "the same files pass once it is installed" 0 "check-deps: ok: 2 files" -- \
  --used-files "$work/fmt" --packages "libsimdjson-dev libfmt-dev" --web "$work/web"

# libstdc++-12-dev comes with build-essential (g++ -> g++-12 -> libstdc++-12-dev); c++ is an
# alternatives link to g++-12; gzip is on every fresh machine.
printf '/usr/include/c++/12/vector\n/usr/bin/c++\n/bin/gzip\n' > "$work/closure"
expect "dependencies, alternatives and fresh-machine packages pass" 0 "check-deps: ok: 3 files" -- \
  --used-files "$work/closure" --packages "build-essential" --web "$work/web"

mkdir -p "$work/local/include"; touch "$work/local/include/handmade.h"
printf '%s\n' "$work/local/include/handmade.h" > "$work/unowned"
expect "a file no package owns is named" 1 "handmade\.h is used by the build but belongs to no Debian package" -- \
  --used-files "$work/unowned" --packages "build-essential" --web "$work/web"

echo "const p = require('left-pad');" > "$work/web/global.cjs"
expect "an npm package web/package.json does not declare is named" 1 "global\.cjs uses the npm package left-pad" -- \
  --used-files "$work/fmt" --packages "libsimdjson-dev libfmt-dev" --web "$work/web"

[ "$failures" = 0 ] || { echo "$failures check-deps test(s) failed"; exit 1; }
