#!/usr/bin/env bash
# Runs the service-side suites under Node 22 or 24 (the lines package.json
# "engines" names), next to the machine's Node: vitest's `service` project,
# which is `node` minus the browser and packaging tests (BROWSER_AND_PACKAGING
# in vitest.config.ts: they build or drive the Electron and Chromium bundles,
# not the service on this Node), and the `postgres` project.
#
#   bash scripts/test-node.sh 22|24 [more vitest arguments]   (npm run test:node22, npm run test:node24)
#
# The Node line and its better-sqlite3 build: scripts/node-runtime.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=node-runtime.sh
. scripts/node-runtime.sh "${1:-}"
shift || true
# PATH first: whatever a test spawns as plain `node` is this Node too.
# The PostgreSQL suites too (the project starts its own server): the pg driver, the pool and the
# cluster code on this Node. (A --exclude given here would not reach the projects: they say what runs.)
PATH="$cache/node/bin:$PATH" "$node_bin" node_modules/vitest/vitest.mjs run --project service --project postgres "$@"
