#!/bin/sh
# The image's entry point (installed as /usr/local/bin/clawcraft-entrypoint by the Containerfile).
#
# Every replica of the StatefulSet reads the same swarm file (the ConfigMap), yet each must log
# in its own bots: two processes starting "Bot001" would kick each other off the server. So when
# CLAWCRAFT_SWARM_TEMPLATE names a swarm file, every "{ordinal}" in it is replaced by this pod's
# ordinal (0, 1, … — from POD_INDEX, the StatefulSet's `apps.kubernetes.io/pod-index` label, or
# else the number that ends POD_NAME or HOSTNAME, "clawcraft-3") and the result is handed to the
# binary as CLAWCRAFT_SWARM (which takes the JSON itself as well as a path). Nothing is written to
# disk, so the root filesystem stays read-only. Without CLAWCRAFT_SWARM_TEMPLATE the binary runs as
# configured by its own flags and variables.
#
# The ordinal must be digits only: it goes into a sed expression and into bot names.
set -eu

if [ -n "${CLAWCRAFT_SWARM_TEMPLATE:-}" ]; then
  ordinal="${POD_INDEX:-}"
  if [ -z "$ordinal" ]; then
    name="${POD_NAME:-${HOSTNAME:-}}"
    ordinal="${name##*-}"
  fi
  case "$ordinal" in
    '' | *[!0-9]*)
      echo "clawcraft-entrypoint: cannot tell this pod's ordinal (POD_INDEX='${POD_INDEX:-}'," \
        "POD_NAME='${POD_NAME:-}', HOSTNAME='${HOSTNAME:-}'): set POD_INDEX to a number" >&2
      exit 2
      ;;
  esac
  if [ ! -r "$CLAWCRAFT_SWARM_TEMPLATE" ]; then
    echo "clawcraft-entrypoint: cannot read the swarm template $CLAWCRAFT_SWARM_TEMPLATE" >&2
    exit 2
  fi
  CLAWCRAFT_SWARM="$(sed "s/{ordinal}/$ordinal/g" "$CLAWCRAFT_SWARM_TEMPLATE")"
  export CLAWCRAFT_SWARM
fi

exec clawcraft "$@"
