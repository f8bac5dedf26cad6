#!/usr/bin/env bash
# The long fuzz run (not in CI): every decoder and the whole bot, ten million inputs each, on the
# `fuzz` profile (optimised, with overflow checks and debug assertions, so an arithmetic overflow
# panics as in a debug build). CI runs the same fuzzers with their short default counts.
#
#   tests/fuzz/long-run.sh [INPUTS]      # default 10000000; takes hours on two cores
#
# Fuzzers (CLAWCRAFT_FUZZ_INPUTS sets how many inputs each feeds):
#   RakNet datagrams      plugins/protocol/src/raknet/tests.rs   fuzz_never_panics
#   game batches          plugins/protocol/tests/batch_fuzz.rs   (compression, encryption, split)
#   every packet          plugins/protocol/tests/codec_fuzz.rs   (per Bedrock version)
#   sub-chunks, chunks    plugins/world/tests/fuzz.rs
#   the bot's handlers    tests/simulation/fuzz_app.rs         (mutated packets through every plugin)
#   JSON command lines    tests/simulation/fuzz_app.rs         (hostile lines through the command path)
set -euo pipefail
cd "$(dirname "$0")/../.."
export CLAWCRAFT_FUZZ_INPUTS="${1:-10000000}"
run() {
    echo "== $* (${CLAWCRAFT_FUZZ_INPUTS} inputs)"
    local start=$SECONDS
    nice cargo test --profile fuzz "$@" -- --nocapture --test-threads 1
    echo "   done in $((SECONDS - start)) s"
}
run -p clawcraft-protocol --lib raknet::tests::fuzz_never_panics
run -p clawcraft-protocol --test batch_fuzz
run -p clawcraft-protocol --test codec_fuzz
run -p clawcraft-world --test fuzz
run -p clawcraft --test simulation fuzz_app::
echo "all fuzzers passed ${CLAWCRAFT_FUZZ_INPUTS} inputs"
