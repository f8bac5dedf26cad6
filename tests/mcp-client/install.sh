#!/usr/bin/env bash
# Idempotent installer for the MCP test client (the official TypeScript SDK, pinned in
# package-lock.json). Safe to run repeatedly, concurrently and from any working directory.
#   1. npm ci --ignore-scripts when node_modules is missing or older than package(-lock).json
#   2. self-check: the SDK's client, stdio and Streamable HTTP transports load
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$DIR"

die() { echo "tests/mcp-client/install.sh: ERROR: $*" >&2; exit 1; }

command -v node >/dev/null 2>&1 || die "node not found in PATH (need Node.js >= 20)"
command -v npm  >/dev/null 2>&1 || die "npm not found in PATH"
[ -f package-lock.json ] || die "package-lock.json missing in $DIR"

# Serialize concurrent runs (parallel test processes): npm ci deletes and recreates node_modules.
if command -v flock >/dev/null 2>&1; then
  LOCK="${TMPDIR:-/tmp}/clawcraft-mcp-client-install-$(printf '%s' "$DIR" | cksum | cut -d' ' -f1).lock"
  exec 9>"$LOCK" || die "cannot open lock file $LOCK"
  flock -w 600 9 || die "timed out waiting for another install.sh (lock $LOCK)"
fi

STAMP="node_modules/.clawcraft-mcp-client-installed"
if [ ! -f "$STAMP" ] || [ package-lock.json -nt "$STAMP" ] || [ package.json -nt "$STAMP" ] \
   || [ ! -f node_modules/@modelcontextprotocol/sdk/package.json ]; then
  echo "tests/mcp-client/install.sh: running npm ci --ignore-scripts" >&2
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2 || die "npm ci failed (is the npm registry reachable?)"
  touch "$STAMP"
fi

node --input-type=module -e '
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js")
  await import("@modelcontextprotocol/sdk/client/stdio.js")
  await import("@modelcontextprotocol/sdk/client/streamableHttp.js")
  if (typeof Client !== "function") throw new Error("no Client in @modelcontextprotocol/sdk")
' || die "self-check failed: @modelcontextprotocol/sdk does not load"
echo "tests/mcp-client/install.sh: ok ($(node -p 'require("./node_modules/@modelcontextprotocol/sdk/package.json").version'))" >&2
