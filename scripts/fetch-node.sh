#!/usr/bin/env bash
# Unpacks a Node release from the npm registry into DIR, once:
#
#   bash scripts/fetch-node.sh SPEC DIR [MEMBER]
#
# SPEC is a version or a line (22, 24, 24.18.1). The node-<platform>-<arch>
# package carries bin/node and the include/node headers; with MEMBER (e.g.
# include) only that folder is kept. DIR/.complete marks a finished unpack, so
# an interrupted one starts again. Used by scripts/node-runtime.sh (the
# test:node22/24 and bench:node22/24 runs) and by .ci/run (CI's Node 22).
set -euo pipefail
spec="${1:?a Node version or line}" dir="${2:?a folder to unpack into}" member="${3:-}"
[ -f "$dir/.complete" ] && exit 0
pkg="node-$(node -p 'process.platform')-$(node -p 'process.arch')@$spec"
echo "${FETCH_NODE_CALLER:-fetch-node}: fetching $pkg from the npm registry"
rm -rf "$dir"
mkdir -p "$dir"
parent="$(dirname "$dir")"
tarball="$(cd "$parent" && npm pack "$pkg" --silent)"
tar xzf "$parent/$tarball" -C "$dir" --strip-components=1 ${member:+"package/$member"}
rm -f "$parent/$tarball"
touch "$dir/.complete"
