#!/usr/bin/env bash
# Re-vendors minecraft-data's Bedrock data for every version listed in data/versions.txt.
#
# Usage: data/refresh.sh [minecraft-data version]
# Installs the npm package into a throwaway directory (no install scripts run) and, for every
# version, copies data/bedrock/<ver>/protocol.json and derives blocks.json (gen-blocks.js),
# shapes.json (gen-shapes.js) and entities.json (make-entities.js) from the data directories
# minecraft-data's dataPaths.json assigns to that version (needs node). Adding a Bedrock version:
# see data/README.md; the Rust build picks the new files up by itself.
set -euo pipefail

MCDATA_VERSION="${1:-3.119.0}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm init -y >/dev/null && npm install --ignore-scripts --no-audit --no-fund "minecraft-data@${MCDATA_VERSION}" >/dev/null)
src="$tmp/node_modules/minecraft-data/minecraft-data/data/bedrock"

grep -v '^\s*#' "$here/versions.txt" | while read -r ver proto _; do
  [ -z "${ver:-}" ] && continue
  if [ ! -f "$src/$ver/protocol.json" ]; then
    echo "minecraft-data@${MCDATA_VERSION} has no bedrock/$ver/protocol.json" >&2
    exit 1
  fi
  mkdir -p "$here/bedrock/$ver"
  cp "$src/$ver/protocol.json" "$here/bedrock/$ver/protocol.json"
  echo "bedrock $ver (protocol $proto): copied"
  # Block states, hardness, tools and shape classes (data/bedrock/<ver>/blocks.json).
  NODE_PATH="$tmp/node_modules" node "$here/gen-blocks.js" "$ver"
  NODE_PATH="$tmp/node_modules" node "$here/gen-shapes.js" "$ver" # collision boxes (clawcraft-physics)
  NODE_PATH="$tmp/node_modules" node "$here/make-entities.js" "$ver" # entity table (clawcraft-entity)
  # Item stack sizes, durability, food, mining speeds per material (data/bedrock/<ver>/items.json).
  NODE_PATH="$tmp/node_modules" node "$here/gen-items.js" "$ver"
done
# The npm tarball ships no LICENSE file; data/SOURCE.md carries the MIT notice.
