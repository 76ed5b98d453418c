#!/usr/bin/env bash
# Fetches Node 22 or 24 from the npm registry and compiles better-sqlite3 for
# it (scripts/node-runtime.sh), into node_modules/.cache/node<line>/ (or
# $NODE_RUNTIME_CACHE/node<line>/), without putting that build in place: a
# later `scripts/test-node.sh LINE` or `scripts/bench-node.sh LINE` (with the
# same $NODE_RUNTIME_CACHE) then starts at once. It reads nothing from
# node_modules (the release comes from package-lock.json), so .ci/run does
# this for Node 24 in the background during `npm ci`.
#
#   bash scripts/prepare-node.sh 22|24
set -euo pipefail
cd "$(dirname "$0")/.."

prepare_only=1
# shellcheck source=node-runtime.sh
. scripts/node-runtime.sh "${1:-}"
