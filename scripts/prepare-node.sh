#!/usr/bin/env bash
# Fetches Node 22 or 24 from the npm registry and compiles better-sqlite3 for
# it (scripts/node-runtime.sh), into node_modules/.cache/node<line>/, without
# putting that build in place: a later `scripts/test-node.sh LINE` or
# `scripts/bench-node.sh LINE` then starts at once. .ci/run does this for
# Node 24 in the background while the typecheck and lint run (each of them
# mostly one core, as is the compile, mostly SQLite's one C file).
#
#   bash scripts/prepare-node.sh 22|24
set -euo pipefail
cd "$(dirname "$0")/.."

prepare_only=1
# shellcheck source=node-runtime.sh
. scripts/node-runtime.sh "${1:-}"
