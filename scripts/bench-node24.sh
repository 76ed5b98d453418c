#!/usr/bin/env bash
# Runs `npm run bench` under Node 24, the runtime `serve` users run (the
# machine's Node may be another; package.json "engines" names 22 and 24):
# the bench itself, `serve`, the limit references and the load generator all
# run on it, with better-sqlite3 built for it.
#
#   bash scripts/bench-node24.sh [bench arguments]   (npm run bench:node24 -- …)
#
# Node 24 and its better-sqlite3 build: scripts/node24-runtime.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

who=bench-node24
# shellcheck source=node24-runtime.sh
. scripts/node24-runtime.sh

echo "bench-node24: npm run bench under Node $version (better-sqlite3 $bs3_version, ABI $abi)"
# PATH first: whatever the bench spawns as plain `node` is Node 24 too.
PATH="$cache/node/bin:$PATH" "$node24" --import tsx bench/run.ts "$@"
