# Sourced by scripts/test-node24.sh and scripts/bench-node24.sh (from the
# project root, after `set -euo pipefail`): puts Node 24 and a better-sqlite3
# built for it in place and restores the machine's build when the shell
# exits. Sets $node24 (its executable), $cache (its folder; bin/ in
# $cache/node), $version, $abi and $bs3_version. $who names the caller in
# messages.
#
# Node 24 comes from the npm registry: the node-<platform>-<arch> package
# ships bin/node and the include/node headers. Everything lives in
# node_modules/.cache/node24/, so a reinstall starts afresh.
#
# better-sqlite3 12 is not an N-API addon: each Node ABI needs its own build,
# and it loads build/Release/better_sqlite3.node. It is compiled here for
# Node 24 (once per better-sqlite3 release and ABI) and, for the run, swapped
# in for the machine's build, which is put back on exit (or at the start of
# the next run if this one was killed). So every opener — the store, the
# data-dir lock, the checkpointer worker, spawned CLIs, tests that open SQLite
# themselves — loads the right build, with no hook in the code.
#
# Headers: better-sqlite3 12 derives from node::ObjectWrap, whose inline code
# in Node >= 24.19's headers removes a cleanup hook in the destructor and
# aborts the process when a statement is garbage-collected ("Assertion
# failed: (env) != nullptr"; docs/decisions.md). The build uses the 24.18.1
# headers (same ABI), as better-sqlite3's published Node-24 prebuilt was
# built, and runs on the current Node 24. A smoke test that collects
# thousands of statements fails the run early if the build has that flaw.

who="${who:-node24}"
RUNTIME_SPEC="${NODE24_SPEC:-24}"
HEADERS_SPEC="${NODE24_HEADERS_SPEC:-24.18.1}"
cache="$PWD/node_modules/.cache/node24"
module="$PWD/node_modules/better-sqlite3"
binding="$module/build/Release/better_sqlite3.node"
saved="$cache/machine-node-better_sqlite3.node"

restore() {
  if [ -f "$saved" ]; then mv -f "$saved" "$binding"; fi
}
restore # a killed run left the Node-24 build in place

[ -f "$binding" ] || { echo "$who: $binding is missing; run npm ci first" >&2; exit 1; }
mkdir -p "$cache"

# fetch SPEC DIR [MEMBER]: unpacks node-<platform>-<arch>@SPEC (or only its MEMBER folder) into DIR, once.
fetch() {
  local spec="$1" dir="$2" member="${3:-}" pkg tarball
  [ -f "$dir/.complete" ] && return 0
  pkg="node-$(node -p 'process.platform')-$(node -p 'process.arch')@$spec"
  echo "$who: fetching $pkg from the npm registry"
  rm -rf "$dir"
  mkdir -p "$dir"
  tarball="$(cd "$cache" && npm pack "$pkg" --silent)"
  tar xzf "$cache/$tarball" -C "$dir" --strip-components=1 ${member:+"package/$member"}
  rm -f "$cache/$tarball"
  touch "$dir/.complete"
}

fetch "$RUNTIME_SPEC" "$cache/node"
fetch "$HEADERS_SPEC" "$cache/headers-$HEADERS_SPEC" include
node24="$cache/node/bin/node"
version="$("$node24" -v)"
abi="$("$node24" -p 'process.versions.modules')"
headers_abi="$(sed -n 's/^#define NODE_MODULE_VERSION \([0-9][0-9]*\)$/\1/p' "$cache/headers-$HEADERS_SPEC/include/node/node_version.h")"
[ "$abi" = "$headers_abi" ] || { echo "$who: Node $version has ABI $abi but the $HEADERS_SPEC headers ABI $headers_abi" >&2; exit 1; }

# --- better-sqlite3 built for that ABI (never touching the machine's build)
bs3_version="$(node -p "require('$module/package.json').version")"
built="$cache/better-sqlite3-$bs3_version-abi$abi-headers-$HEADERS_SPEC/better_sqlite3.node"
if ! [ -f "$built" ]; then
  echo "$who: compiling better-sqlite3 $bs3_version for Node $abi ABI against the $HEADERS_SPEC headers"
  work="$cache/work"
  rm -rf "$work"
  mkdir -p "$work"
  (cd "$module" && tar cf - --exclude=./build --exclude=./node_modules --exclude=./prebuilds .) | tar xf - -C "$work"
  # node-gyp: the project's (via @electron/rebuild), else the one npm bundles.
  gyp="$(node -p "require.resolve('node-gyp/bin/node-gyp.js')" 2>/dev/null)" ||
    gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
  # --nodedir: these headers, not the machine's (a user npmrc may set nodedir=/usr).
  (cd "$work" && "$node24" "$gyp" rebuild --release --nodedir="$cache/headers-$HEADERS_SPEC" --jobs=max >"$cache/build.log" 2>&1) || {
    tail -40 "$cache/build.log" >&2
    echo "$who: building better-sqlite3 for Node $version failed (full log: $cache/build.log)" >&2
    exit 1
  }
  mkdir -p "$(dirname "$built")"
  cp "$work/build/Release/better_sqlite3.node" "$built.tmp"
  mv -f "$built.tmp" "$built"
  rm -rf "$work"
fi

# --- the run, with the Node-24 build in place
cp -p "$binding" "$saved.tmp"
mv -f "$saved.tmp" "$saved"
trap restore EXIT
cp "$built" "$binding.tmp"
mv -f "$binding.tmp" "$binding"
# Loads, and survives garbage collection of thousands of statements.
"$node24" -e "
  const db = new (require('better-sqlite3'))(':memory:');
  for (let i = 0; i < 5000; i++) db.prepare('SELECT ' + i).get();
  let junk = []; for (let i = 0; i < 2e6; i++) junk.push({ i }); junk = null;
  db.close();
" || { echo "$who: the Node-24 build of better-sqlite3 does not survive a garbage collection" >&2; exit 1; }

