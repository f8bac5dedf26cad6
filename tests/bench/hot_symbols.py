#!/usr/bin/env python3
"""Regenerates src/hot_symbols.txt: the functions an idle spawned bot runs every tick, which the
release link places next to each other (see src/build.rs). A bench tool, not a test; needs Linux `perf` (Debian: linux-perf) and the peer installed.

  python3 tests/bench/hot_symbols.py [--bin PATH] [--seconds 90]

It runs the release binary (built without or with an older list, either works) idle on the flat
peer, samples its game thread with `perf record --call-graph dwarf`, and writes every function of
the executable seen on a sampled stack (leaf or caller), hottest first, by mangled name. Names keep
their hash across edits of a function's body, so the list goes stale slowly; a name that no longer
exists is ignored by the linker.
"""
import argparse, collections, os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(__file__))
import figures  # noqa: E402  (the peer and spawn helpers)

OUT = os.path.join(figures.ROOT, "src", "hot_symbols.txt")
HEADER = """# Functions an idle spawned bot runs in every tick, hottest first (mangled names).
# The release link of the `clawcraft` binary places them together (src/build.rs), so an idle tick
# touches fewer pages of code. Regenerate: python3 tests/bench/hot_symbols.py
"""


def hot_symbols(script_text, exe):
    """Counts each function of `exe` over every frame of every sample in `perf script` output."""
    counts = collections.Counter()
    for line in script_text.splitlines():
        parts = line.split()
        # Frame lines: "<ip> <symbol>+0x<off> (<dso>)".
        if len(parts) < 3 or not parts[-1].startswith("(") or os.path.basename(parts[-1].strip("()")) != exe:
            continue
        sym = parts[1].rsplit("+0x", 1)[0]
        if sym != "[unknown]":
            counts[sym] += 1
    return [s for s, _ in counts.most_common()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=figures.BIN)
    ap.add_argument("--seconds", type=int, default=90)
    a = ap.parse_args()
    exe = os.path.abspath(a.bin)
    subprocess.run(["bash", os.path.join(figures.PEER, "install.sh")], check=True, stdout=subprocess.DEVNULL)
    figures.BIN = exe
    port = figures.free_port()
    peer = figures.start_peer(port)
    try:
        _, bot = figures.clawcraft_spawn_ms(port)
        time.sleep(3)
        with tempfile.TemporaryDirectory() as td:
            data = os.path.join(td, "perf.data")
            subprocess.run(["perf", "record", "-F", "20000", "--call-graph", "dwarf,16384", "-t", str(bot.pid),
                            "-o", data, "--", "sleep", str(a.seconds)],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            script = subprocess.run(["perf", "script", "-i", data, "--no-demangle", "-F", "ip,sym,dso"],
                                    check=True, capture_output=True, text=True).stdout
        figures.stop(bot)
    finally:
        peer.kill()
    syms = hot_symbols(script, os.path.basename(exe))
    if not syms:
        sys.exit("no samples of the executable's own functions (is perf allowed to read them?)")
    with open(OUT, "w") as f:
        f.write(HEADER)
        f.write("\n".join(syms) + "\n")
    print(f"{len(syms)} functions -> {os.path.relpath(OUT, figures.ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
