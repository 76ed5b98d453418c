# Sourced by scripts/test-node.sh, scripts/bench-node.sh and
# scripts/prepare-node.sh (from the project root, after `set -euo pipefail`)
# with the Node line, 22 or 24, as its argument: puts that line and a
# better-sqlite3 built for it in place, says so, and restores the machine's
# build when the shell exits. Sets $node_bin (its executable), $cache (its
# folder; bin/ in $cache/node), $version, $abi and $bs3_version. Messages name
# the caller ($who: the calling script and the line, e.g. test-node24). With
# $prepare_only set (scripts/prepare-node.sh) it stops once the build is
# ready, leaving node_modules' build as it is.
#
# Node comes from the npm registry: the node-<platform>-<arch> package ships
# bin/node and the include/node headers. Everything lives in
# node_modules/.cache/node<line>/, so a reinstall starts afresh (or in
# $NODE_RUNTIME_CACHE/node<line>/). The lines are the ones package.json
# "engines" names: 22 (also inside Electron 45, which runs the desktop app)
# and 24 (what `serve` users run).
#
# better-sqlite3 12 is not an N-API addon: each Node ABI needs its own build,
# and it loads build/Release/better_sqlite3.node. It is compiled here, from
# the registry's package of the installed release, for the line's ABI (once
# per better-sqlite3 release and ABI) and, for the run, swapped in for the
# machine's build, which is put back on exit (or at the start of the next run
# of either line if this one was killed). So every opener — the store, the
# data-dir lock, the checkpointer worker, spawned CLIs, tests that open SQLite
# themselves — loads the right build, with no hook in the code. One run at a
# time per checkout: two would swap the one file under each other.
#
# Headers: better-sqlite3 12 derives from node::ObjectWrap, whose inline code
# in Node >= 24.19's headers removes a cleanup hook in the destructor and
# aborts the process when a statement is garbage-collected ("Assertion
# failed: (env) != nullptr"; docs/decisions.md). On line 24 the build uses the
# 24.18.1 headers (same ABI), as better-sqlite3's published Node-24 prebuilt
# was built, and runs on the current Node 24; line 22's own headers do not
# have the flaw. A smoke test that collects thousands of statements fails the
# run early if the build has it.

line="${1:-}"
who="$(basename "$0" .sh)$line"
case "$line" in
  22) default_headers="" ;; # the runtime's own
  24) default_headers="24.18.1" ;;
  *) echo "$who: the Node line must be 22 or 24, not '$line'" >&2; exit 1 ;;
esac
# NODE24_SPEC / NODE24_HEADERS_SPEC (NODE22_…): another release of the line, other headers.
spec_var="NODE${line}_SPEC"
headers_var="NODE${line}_HEADERS_SPEC"
RUNTIME_SPEC="${!spec_var:-$line}"
HEADERS_SPEC="${!headers_var-$default_headers}"
# $NODE_RUNTIME_CACHE: another folder for the lines (.ci/run's, which outlives `npm ci`).
cache="${NODE_RUNTIME_CACHE:-$PWD/node_modules/.cache}/node$line"
module="$PWD/node_modules/better-sqlite3"
binding="$module/build/Release/better_sqlite3.node"
# The machine's build while another is in place: one place for both lines (the older
# location under node24/ too), so a killed run of either is undone by the next run of either.
saved="$PWD/node_modules/.cache/machine-better_sqlite3.node"
legacy_saved="$PWD/node_modules/.cache/node24/machine-node-better_sqlite3.node"

restore() {
  if [ -f "$legacy_saved" ]; then mv -f "$legacy_saved" "$binding"; fi
  if [ -f "$saved" ]; then mv -f "$saved" "$binding"; fi
}
# $prepare_only (scripts/prepare-node.sh): fetch and compile, and leave node_modules' build alone.
[ -n "${prepare_only:-}" ] || restore # a killed run left another line's build in place

[ -n "${prepare_only:-}" ] || [ -f "$binding" ] || { echo "$who: $binding is missing; run npm ci first" >&2; exit 1; }
mkdir -p "$cache"

# fetch SPEC DIR [MEMBER]: that release of Node (or only its MEMBER folder) unpacked into DIR, once.
fetch() { FETCH_NODE_CALLER="$who" bash scripts/fetch-node.sh "$@"; }

fetch "$RUNTIME_SPEC" "$cache/node"
node_bin="$cache/node/bin/node"
version="$("$node_bin" -v)"
abi="$("$node_bin" -p 'process.versions.modules')"
if [ -n "$HEADERS_SPEC" ]; then
  headers_dir="$cache/headers-$HEADERS_SPEC"
  fetch "$HEADERS_SPEC" "$headers_dir" include
else
  HEADERS_SPEC="${version#v}"
  headers_dir="$cache/node"
fi
headers_abi="$(sed -n 's/^#define NODE_MODULE_VERSION \([0-9][0-9]*\)$/\1/p' "$headers_dir/include/node/node_version.h")"
[ "$abi" = "$headers_abi" ] || { echo "$who: Node $version has ABI $abi but the $HEADERS_SPEC headers ABI $headers_abi" >&2; exit 1; }

# --- better-sqlite3 built for that ABI (never touching the machine's build)
# The release installed; when preparing, the one package-lock.json names (node_modules may
# not be there yet, or be in the middle of `npm ci`: .ci/run prepares during the install).
if [ -n "${prepare_only:-}" ]; then
  bs3_version="$(node -p "require('./package-lock.json').packages['node_modules/better-sqlite3'].version")"
else
  bs3_version="$(node -p "require('$module/package.json').version")"
fi
built="$cache/better-sqlite3-$bs3_version-abi$abi-headers-$HEADERS_SPEC/better_sqlite3.node"
if ! [ -f "$built" ]; then
  echo "$who: compiling better-sqlite3 $bs3_version for Node $abi ABI against the $HEADERS_SPEC headers"
  work="$cache/work"
  rm -rf "$work"
  mkdir -p "$work"
  # Its sources from the npm registry, node-gyp the one npm bundles (what `npm ci` builds the
  # machine's copy with): nothing read from node_modules.
  (cd "$work" && npm pack "better-sqlite3@$bs3_version" --silent >/dev/null && tar xzf better-sqlite3-*.tgz --strip-components=1 && rm -f better-sqlite3-*.tgz) || {
    echo "$who: could not fetch better-sqlite3 $bs3_version from the npm registry" >&2
    exit 1
  }
  gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
  # --nodedir: these headers, not the machine's (a user npmrc may set nodedir=/usr), and no
  # npm_config_nodedir from the environment, which node-gyp would take over the flag.
  (cd "$work" && env -u npm_config_nodedir -u NPM_CONFIG_NODEDIR "$node_bin" "$gyp" rebuild --release --nodedir="$headers_dir" --jobs=max >"$cache/build.log" 2>&1) || {
    tail -40 "$cache/build.log" >&2
    echo "$who: building better-sqlite3 for Node $version failed (full log: $cache/build.log)" >&2
    exit 1
  }
  mkdir -p "$(dirname "$built")"
  cp "$work/build/Release/better_sqlite3.node" "$built.tmp"
  mv -f "$built.tmp" "$built"
  rm -rf "$work"
fi

if [ -n "${prepare_only:-}" ]; then
  echo "$who: Node $version and better-sqlite3 $bs3_version built for ABI $abi are ready"
  return 0
fi

# --- the run, with the line's build in place
mkdir -p "$(dirname "$saved")" # node_modules/.cache, not made above when $NODE_RUNTIME_CACHE is elsewhere
cp -p "$binding" "$saved.tmp"
mv -f "$saved.tmp" "$saved"
trap restore EXIT
cp "$built" "$binding.tmp"
mv -f "$binding.tmp" "$binding"
# Loads, and survives garbage collection of thousands of statements.
"$node_bin" -e "
  const db = new (require('better-sqlite3'))(':memory:');
  for (let i = 0; i < 5000; i++) db.prepare('SELECT ' + i).get();
  let junk = []; for (let i = 0; i < 2e6; i++) junk.push({ i }); junk = null;
  db.close();
" || {
  rm -f "$built" # compiled afresh next time
  echo "$who: the Node-$line build of better-sqlite3 does not load, or does not survive a garbage collection" >&2
  exit 1
}
echo "$who: Node $version (better-sqlite3 $bs3_version, ABI $abi)"

