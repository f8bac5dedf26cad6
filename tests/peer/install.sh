#!/usr/bin/env bash
# Idempotent installer for the clawcraft end-to-end test peer.
# Safe to run repeatedly and from any working directory.
#   1. npm ci --ignore-scripts when node_modules is missing or older than package-lock.json
#      (raknet-native's install script needs cmake + network access to fetch headers; we use its shipped prebuild instead)
#   2. copy raknet-native's linux prebuild to the folder named after the running kernel's major version,
#      which is where raknet-native/helpers/buildPath.js getPath() looks: prebuilds/<platform>-<os.release() major>-<arch>/
#   3. self-check: require('bedrock-protocol') and load the native RakNet binding
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$DIR"

die() { echo "tests/peer/install.sh: ERROR: $*" >&2; exit 1; }

command -v node >/dev/null 2>&1 || die "node not found in PATH (need Node.js >= 18)"
command -v npm  >/dev/null 2>&1 || die "npm not found in PATH"
[ -f package-lock.json ] || die "package-lock.json missing in $DIR"

# Serialize concurrent runs (parallel test processes): npm ci deletes and recreates node_modules.
if command -v flock >/dev/null 2>&1; then
  LOCK="${TMPDIR:-/tmp}/clawcraft-peer-install-$(printf '%s' "$DIR" | cksum | cut -d' ' -f1).lock"
  exec 9>"$LOCK" || die "cannot open lock file $LOCK"
  flock -w 600 9 || die "timed out waiting for another install.sh (lock $LOCK)"
fi

STAMP="node_modules/.clawcraft-peer-installed"
need_install=0
if [ ! -d node_modules ] || [ ! -f "$STAMP" ]; then
  need_install=1
elif [ package-lock.json -nt "$STAMP" ] || [ package.json -nt "$STAMP" ]; then
  need_install=1
elif [ ! -f node_modules/bedrock-protocol/package.json ] || [ ! -f node_modules/raknet-native/package.json ] || [ ! -f node_modules/minecraft-data/package.json ]; then
  need_install=1
fi

if [ "$need_install" = 1 ]; then
  echo "tests/peer/install.sh: running npm ci --ignore-scripts" >&2
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2 || die "npm ci --ignore-scripts failed (is the npm registry reachable?)"
  touch "$STAMP"
fi

# Place the raknet-native prebuild where helpers/buildPath.js getPath() will look for it.
RK="node_modules/raknet-native"
TARGET_DIR="$(node -e '
  const os = require("os");
  console.log(`${process.platform}-${os.release().split(".", 1)[0]}-${process.arch}`)
')"
if [ ! -f "$RK/prebuilds/$TARGET_DIR/node-raknet.node" ]; then
  SRC=""
  plat="${TARGET_DIR%%-*}"; arch="${TARGET_DIR##*-}"
  for cand in "$RK"/prebuilds/"$plat"-*-"$arch"/node-raknet.node; do
    [ -f "$cand" ] && { SRC="$cand"; break; }
  done
  [ -n "$SRC" ] || die "no raknet-native prebuild for $plat/$arch in $RK/prebuilds (have: $(ls "$RK/prebuilds" 2>/dev/null | tr '\n' ' '))"
  mkdir -p "$RK/prebuilds/$TARGET_DIR"
  cp "$SRC" "$RK/prebuilds/$TARGET_DIR/node-raknet.node"
  echo "tests/peer/install.sh: copied $SRC -> $RK/prebuilds/$TARGET_DIR/" >&2
fi

# Self-check.
node -e '
  const bp = require("bedrock-protocol");
  if (typeof bp.createServer !== "function") throw new Error("bedrock-protocol has no createServer");
  const rn = require("raknet-native");
  if (!rn.RakServer) throw new Error("raknet-native binding did not load");
  const fs = require("fs");
  for (const line of fs.readFileSync("../../data/versions.txt", "utf8").split("\n")) {
    const v = line.trim().split(/\s+/)[0];
    if (v && !v.startsWith("#") && !require("minecraft-data")("bedrock_" + v)) throw new Error("minecraft-data lacks bedrock " + v);
  }
' || die "self-check failed: require(\"bedrock-protocol\") / raknet-native binding does not load"
echo "tests/peer/install.sh: ok ($TARGET_DIR)" >&2
