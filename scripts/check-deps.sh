#!/usr/bin/env bash
# The dependency-closure check: every file outside the repository that a build used must come
# from a Debian package that scripts/install-deps.sh installs (directly or as a dependency) or
# that a fresh machine already has. A machine where something was installed by hand cannot
# fool it: it asks what the build used, not what the machine has.
#
# Usage: scripts/check-deps.sh BUILD_DIR [--used-files FILE] [--packages "P1 P2 ..."]
#                              [--fresh-list FILE] [--web DIR] [--verbose]
#   --used-files  check these paths (one a line) instead of collecting them from BUILD_DIR
#   --packages    the packages install-deps.sh installs (default: its --print-packages)
#   --fresh-list  Debian packages of a fresh machine, one a line
#                 (default: ../shared/env/fresh-machine-apt-packages.txt beside the clone)
#   --web         the npm project to check (default: web/ of this clone)
# Exit: 0 closed, 1 a package or file is not accounted for (each named), 2 usage error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

build="" used_list="" packages="" verbose=0 web=$root/web
fresh_list="$root/../shared/env/fresh-machine-apt-packages.txt"
while [ $# -gt 0 ]; do
  case "$1" in
    --used-files) used_list=$2; shift 2 ;;
    --packages) packages=$2; shift 2 ;;
    --fresh-list) fresh_list=$2; shift 2 ;;
    --web) web=$2; shift 2 ;;
    --verbose) verbose=1; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-deps: error: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
[ -n "$build" ] || [ -n "$used_list" ] || { echo "check-deps: error: usage: $0 BUILD_DIR" >&2; exit 2; }
[ -f "$fresh_list" ] || { echo "check-deps: error: $fresh_list: no fresh-machine package list" >&2; exit 2; }
[ -n "$packages" ] || packages=$("$root/scripts/install-deps.sh" --print-packages)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s.%N)

# Where files may come from without a package: the clone, the build folder, and CUDA under
# /usr/local/cuda*, which CI machines have and the build uses only when present.
build_abs=$( [ -n "$build" ] && cd "$build" && pwd || echo /nonexistent)
is_exempt() { case "$1" in "$root"/*|"$build_abs"/*|/usr/local/cuda*) return 0 ;; esac; return 1; }

collect_used_files() {
  local b=$1
  [ -f "$b/build.ninja" ] && [ -f "$b/CMakeCache.txt" ] || {
    echo "check-deps: error: $b: not a configured CMake/Ninja build folder" >&2; exit 2; }
  # Headers every object was compiled with (the compiler's own dependency lists).
  ninja -C "$b" -t deps 2>/dev/null | sed -n 's/^ \{4\}\(\/.*\)/\1/p'
  # Libraries on the link lines: absolute paths, and -lNAME resolved as the linker would.
  grep -E '^ +LINK_LIBRARIES = ' "$b/build.ninja" | tr ' ' '\n' | grep -E '^(/|-l)' | sort -u |
    while read -r lib; do
      case "$lib" in
        -l*) f=$(c++ -print-file-name="lib${lib#-l}.so"); [ "${f#/}" != "$f" ] && echo "$f" ;;
        *) echo "$lib" ;;
      esac
    done
  # Package configuration folders find_package used, and every program or file the
  # configuration found (compilers, find_program: node, npm, prometheus, chromium, ...).
  sed -n 's/^[A-Za-z0-9_]*_DIR:PATH=\(\/.*\)/\1/p' "$b/CMakeCache.txt" | while read -r d; do
    [ -d "$d" ] && find "$d" -maxdepth 1 -name '*.cmake' | head -1
  done
  sed -n 's/^[A-Za-z0-9_.+-]*:FILEPATH=\(\/.*\)/\1/p' "$b/CMakeCache.txt"
}

if [ -n "$used_list" ]; then
  cp "$used_list" "$work/used"
else
  collect_used_files "$build" > "$work/used"
fi
# Each existing file with its symbolic links resolved, by one readlink for all of them (a
# readlink per file took 7 s of the check's 15 here).
sort -u "$work/used" | while read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done > "$work/existing"
xargs -a "$work/existing" -d '\n' -r readlink -f -- > "$work/existing_real"
[ "$(wc -l < "$work/existing")" = "$(wc -l < "$work/existing_real")" ] || {
  echo "check-deps: error: a file the build used vanished while its links were resolved; run again" >&2; exit 2; }
paste "$work/existing" "$work/existing_real" | while IFS=$'\t' read -r f real; do
  is_exempt "$f" && continue
  is_exempt "$real" && continue
  printf '%s\t%s\n' "$f" "$real"
done > "$work/resolved"
cut -f1 "$work/resolved" > "$work/files"

# Each file under every name it has: as given, and with symbolic links resolved (an
# alternatives link names the package of the real program). Debian 12's merged /usr
# registers some files under /lib, /bin or /sbin.
while IFS=$'\t' read -r f real; do
  for name in "$f" "$real"; do
    printf '%s\t%s\n' "$f" "$name"
    case "$name" in /usr/lib/*|/usr/bin/*|/usr/sbin/*|/usr/lib64/*) printf '%s\t%s\n' "$f" "${name#/usr}" ;; esac
  done
done < "$work/resolved" | sort -u > "$work/names"

# One dpkg -S call for all names (it loads its database once).
cut -f2 "$work/names" | sort -u > "$work/queries"
xargs -a "$work/queries" -d '\n' dpkg -S 2>/dev/null | grep -v '^diversion ' |
  sed -n 's/^\(.*\): \(\/.*\)$/\1\t\2/p' > "$work/owners" || true
# "pkg1, pkg2: /path" (a folder or a file two packages share): one line a package.
awk -F'\t' '{n = split($1, p, ", "); for (i = 1; i <= n; i++) { sub(/:.*/, "", p[i]); print p[i] "\t" $2 } }' \
  "$work/owners" | sort -u > "$work/owner_by_name"

# file -> packages (any of its names), and files no package owns.
awk -F'\t' 'FILENAME == ARGV[1] { owners[$2] = owners[$2] " " $1; next }
            { if ($2 in owners) { n = split(owners[$2], p, " "); for (i = 1; i <= n; i++) print $1 "\t" p[i] }
              else print $1 "\t" }' "$work/owner_by_name" "$work/names" | sort -u > "$work/file_pkgs"
awk -F'\t' '{ if ($2 != "") owned[$1] = 1; seen[$1] = 1 } END { for (f in seen) if (!(f in owned)) print f }' \
  "$work/file_pkgs" | sort > "$work/unowned"

# What a fresh machine gets: its own packages plus install-deps.sh's, with their dependency
# closure (Depends and Pre-Depends, not Recommends: install-deps.sh uses --no-install-recommends).
read -r -a pkg_array <<< "$packages"
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
  --no-enhances "${pkg_array[@]}" 2>/dev/null | grep -v '^ ' | tr -d '<>' | sed 's/:.*//' > "$work/closure" || true
printf '%s\n' "${pkg_array[@]}" >> "$work/closure"
sed 's/:.*//; s/[[:space:]]//g' "$fresh_list" | grep -v '^$' | cat - "$work/closure" | sort -u > "$work/available"

awk -F'\t' '$2 != "" { print $2 "\t" $1 }' "$work/file_pkgs" | sort -k1,1 -u > "$work/pkg_example"
cut -f1 "$work/pkg_example" | sort -u > "$work/needed"
comm -23 "$work/needed" "$work/available" > "$work/missing"

files=$(wc -l < "$work/files")
needed=$(wc -l < "$work/needed")
elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
if [ "$verbose" = 1 ]; then
  echo "check-deps: packages the build used:"; sed 's/^/  /' "$work/pkg_example"
fi
status=0
if [ -s "$work/missing" ]; then
  status=1
  while read -r p; do
    example=$(awk -F'\t' -v p="$p" '$1 == p { print $2; exit }' "$work/pkg_example")
    echo "check-deps: error: package $p (e.g. $example) is used by the build but neither installed by scripts/install-deps.sh nor on a fresh machine" >&2
  done < "$work/missing"
fi
if [ -s "$work/unowned" ]; then
  status=1
  while read -r f; do
    echo "check-deps: error: $f is used by the build but belongs to no Debian package (installed by hand?)" >&2
  done < "$work/unowned"
fi

# npm: the web build and the browser tests may use only what web/package.json names, as
# installed by `npm ci` from web/package-lock.json into the build folder (never a global
# package): every bare module name the web code imports or requires is declared, and the
# installed tree is exactly the lock file's.
check_npm() {
  node - "$web" "${build_abs}/web/node_modules/.package-lock.json" <<'JS' || status=1
const fs = require('fs'), path = require('path');
const [web, installed] = process.argv.slice(2);
const pkg = JSON.parse(fs.readFileSync(path.join(web, 'package.json'), 'utf8'));
const declared = new Set(Object.keys({...pkg.dependencies, ...pkg.devDependencies}));
const builtins = new Set(require('module').builtinModules);
let bad = 0;
const walk = (dir) => fs.readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
  e.name === 'node_modules' ? [] : e.isDirectory() ? walk(path.join(dir, e.name)) :
  /\.(m?js|cjs)$/.test(e.name) ? [path.join(dir, e.name)] : []);
for (const file of walk(web)) {
  const text = fs.readFileSync(file, 'utf8');
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)) {
    const spec = m[1];
    if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:')) continue;
    const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    if (builtins.has(name) || declared.has(name)) continue;
    console.error(`check-deps: error: ${path.relative(web, file)} uses the npm package ${name}, which web/package.json does not declare (a global or hand-installed package?)`);
    bad++;
  }
}
if (fs.existsSync(installed)) {
  const lock = JSON.parse(fs.readFileSync(path.join(web, 'package-lock.json'), 'utf8')).packages;
  const have = JSON.parse(fs.readFileSync(installed, 'utf8')).packages;
  const want = Object.keys(lock).filter((k) => k !== '' && !lock[k].optional);
  for (const k of want) if (!have[k] || have[k].version !== lock[k].version) {
    console.error(`check-deps: error: ${k} ${lock[k].version} of web/package-lock.json is not what npm ci installed in the build folder`);
    bad++;
  }
  for (const k of Object.keys(have)) if (!lock[k]) {
    console.error(`check-deps: error: ${k} is installed in the build folder but not in web/package-lock.json`);
    bad++;
  }
}
process.exit(bad ? 1 : 0);
JS
}
check_npm

[ "$status" = 0 ] && echo "check-deps: ok: $files files outside the clone, from $needed Debian packages, all installed by scripts/install-deps.sh or on a fresh machine (${elapsed} s)"
exit "$status"
