#!/usr/bin/env bash
# Idempotent installer of the offline Kubernetes schema validator that tests/e2e/kubernetes_manifests.rs
# runs on examples/kubernetes/: kubernetes-validate from PyPI (pinned with its dependencies in
# requirements.txt beside this script) in a virtualenv at target/kubernetes-validate. It ships
# the JSON schemas of every Kubernetes version it knows, so validating needs no network; only
# this install does (PyPI). Safe to run repeatedly, concurrently and from any directory.
#   1. python3 -m venv + pip install -r requirements.txt, when the venv is missing or older
#      than requirements.txt
#   2. self-check: the installed version is the pinned one and its schemas load
#   3. prints the venv's python on stdout (the test runs `python -m kubernetes_validate` with it)
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$DIR/../.." && pwd)"
VENV="$ROOT/target/kubernetes-validate"
REQ="$DIR/requirements.txt"
PY="${PYTHON:-python3}"

die() { echo "tests/kubernetes/install.sh: ERROR: $*" >&2; exit 1; }

command -v "$PY" >/dev/null 2>&1 || die "$PY not found in PATH (need Python >= 3.9 with venv and pip)"
[ -f "$REQ" ] || die "requirements.txt missing in $DIR"
mkdir -p "$ROOT/target"

# Serialize concurrent runs (.ci/run and test processes): a half-built venv must not be used.
if command -v flock >/dev/null 2>&1; then
  LOCK="${TMPDIR:-/tmp}/clawcraft-kubernetes-validate-$(printf '%s' "$VENV" | cksum | cut -d' ' -f1).lock"
  exec 9>"$LOCK" || die "cannot open lock file $LOCK"
  flock -w 600 9 || die "timed out waiting for another install.sh (lock $LOCK)"
fi

STAMP="$VENV/.clawcraft-installed"
if [ ! -x "$VENV/bin/python" ] || [ ! -f "$STAMP" ] || [ "$REQ" -nt "$STAMP" ]; then
  echo "tests/kubernetes/install.sh: creating $VENV (pip install -r requirements.txt)" >&2
  rm -rf "$VENV"
  "$PY" -m venv "$VENV" >&2 || die "$PY -m venv failed (Debian: apt-get install python3-venv)"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$REQ" >&2 \
    || die "pip install -r $REQ failed (is PyPI reachable?)"
  touch "$STAMP"
fi

# Self-check: the pinned version, and the schemas of the newest Kubernetes it knows load.
PIN="$(sed -n 's/^kubernetes-validate==//p' "$REQ")"
"$VENV/bin/python" - "$PIN" >&2 <<'PYEOF' || die "self-check failed: kubernetes-validate does not load or is not the pinned version"
import sys
import kubernetes_validate.utils as utils
from kubernetes_validate.version import __version__
assert __version__ == sys.argv[1], f"installed {__version__}, pinned {sys.argv[1]}"
latest = utils.latest_version()
utils.validate({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "check"}}, latest, True)
print(f"tests/kubernetes/install.sh: ok (kubernetes-validate {__version__}, schemas up to Kubernetes {latest})")
PYEOF
echo "$VENV/bin/python"
