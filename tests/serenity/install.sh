#!/usr/bin/env bash
# Idempotent installer for SerenityJS, the independent Bedrock server of clawcraft's end-to-end tests
# (tests/e2e/serenity.rs). Safe to run repeatedly and from any working directory.
#   1. npm ci --ignore-scripts when node_modules is missing or older than package.json/package-lock.json. The pinned
#      @serenityjs/core depends on @serenityjs/leveldb, a native module that is not on the npm registry; only
#      Serenity's LevelDB world provider uses it, so package.json's `overrides` point it at ./leveldb-stub and the
#      tests run the in-memory provider. --ignore-scripts: no install script runs.
#   2. self-check: @serenityjs/core loads and speaks the version the tests expect.
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$DIR"

die() { echo "tests/serenity/install.sh: ERROR: $*" >&2; exit 1; }

command -v node >/dev/null 2>&1 || die "node not found in PATH (need Node.js >= 20)"
command -v npm  >/dev/null 2>&1 || die "npm not found in PATH"
[ -f package-lock.json ] || die "package-lock.json missing in $DIR"

# Serialize concurrent runs (parallel test processes): npm ci deletes and recreates node_modules.
if command -v flock >/dev/null 2>&1; then
  LOCK="${TMPDIR:-/tmp}/clawcraft-serenity-install-$(printf '%s' "$DIR" | cksum | cut -d' ' -f1).lock"
  exec 9>"$LOCK" || die "cannot open lock file $LOCK"
  flock -w 600 9 || die "timed out waiting for another install.sh (lock $LOCK)"
fi

STAMP="node_modules/.clawcraft-serenity-installed"
need_install=0
if [ ! -d node_modules ] || [ ! -f "$STAMP" ]; then
  need_install=1
elif [ package-lock.json -nt "$STAMP" ] || [ package.json -nt "$STAMP" ] || [ leveldb-stub/package.json -nt "$STAMP" ]; then
  need_install=1
elif [ ! -f node_modules/@serenityjs/core/package.json ]; then
  need_install=1
fi

if [ "$need_install" = 1 ]; then
  echo "tests/serenity/install.sh: running npm ci --ignore-scripts" >&2
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2 || die "npm ci --ignore-scripts failed (is the npm registry reachable?)"
  touch "$STAMP"
fi

node -e '
  const core = require("@serenityjs/core/package.json")
  const protocol = require("@serenityjs/protocol")
  if (typeof require("@serenityjs/core").Serenity !== "function") throw new Error("@serenityjs/core has no Serenity")
  const want = "1.26.20"
  if (protocol.MINECRAFT_VERSION !== want) throw new Error(`@serenityjs/protocol speaks ${protocol.MINECRAFT_VERSION}, the tests expect ${want}`)
  process.stderr.write(`tests/serenity/install.sh: ok (@serenityjs/core ${core.version}, Bedrock ${protocol.MINECRAFT_VERSION} / protocol ${protocol.PROTOCOL_VERSION})\n`)
' || die "self-check failed"
