#!/usr/bin/env bash
# Regenerates data/block_colors.tsv (clawcraft-view's block colour table) from the block textures
# of the npm package minecraft-assets (MIT, PrismarineJS): installs it into a throwaway directory
# (no install scripts run) and runs gen-colors.js on one version's textures (needs node).
#
# Usage: data/refresh-colors.sh [minecraft-assets version] [texture version]
set -euo pipefail

ASSETS_VERSION="${1:-1.19.0}"
TEXTURES="${2:-26.1}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm init -y >/dev/null && npm install --ignore-scripts --no-audit --no-fund "minecraft-assets@${ASSETS_VERSION}" >/dev/null)
node "$here/gen-colors.js" "$tmp/node_modules/minecraft-assets/minecraft-assets/data/${TEXTURES}"
