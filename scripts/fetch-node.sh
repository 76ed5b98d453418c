#!/usr/bin/env bash
# Unpacks a Node release from the npm registry into DIR, once per SPEC:
#
#   bash scripts/fetch-node.sh SPEC DIR [MEMBER]
#
# SPEC is a version or a line (22, 24, 24.18.1). The node-<platform>-<arch>
# package carries bin/node and the include/node headers; with MEMBER (e.g.
# include) only that folder is kept. DIR/.complete marks a finished unpack
# and holds the package it came from: an interrupted unpack, or one of
# another SPEC (NODE22_SPEC=22.12.0 after a run of 22), starts again. A line
# once unpacked stays on the release it got until DIR is removed. Used by
# scripts/node-runtime.sh (the test:node22/24 and bench:node22/24 runs) and
# by .ci/run (CI's Node 22).
set -euo pipefail
spec="${1:?a Node version or line}" dir="${2:?a folder to unpack into}" member="${3:-}"
pkg="node-$(node -p 'process.platform')-$(node -p 'process.arch')@$spec"
[ "$(cat "$dir/.complete" 2>/dev/null)" = "$pkg${member:+ $member}" ] && exit 0
echo "${FETCH_NODE_CALLER:-fetch-node}: fetching $pkg from the npm registry"
rm -rf "$dir"
mkdir -p "$dir"
# Packed into DIR itself: nothing left beside it if the unpack fails.
tarball="$(cd "$dir" && npm pack "$pkg" --silent)"
tar xzf "$dir/$tarball" -C "$dir" --strip-components=1 ${member:+"package/$member"}
rm -f "$dir/$tarball"
echo "$pkg${member:+ $member}" > "$dir/.complete"
