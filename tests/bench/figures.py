#!/usr/bin/env python3
"""Connect-to-spawn time and an idle bot's memory and CPU (a bench script, not a timed test; run
by tests/bench/report.py for the bench report, README's connect → spawn row).

  python3 tests/bench/figures.py [--runs 5] [--idle-seconds 60] [--build] [--idle-only] [--bin PATH]

- connect -> spawn time of `clawcraft` and of bedrock-protocol's own client against the same peer
- RSS (right after spawn and at the end; file-backed = pages of the executable, anonymous = heap
  and stacks) and CPU (whole process and per thread: % of a core, ms per 50 ms tick period,
  wake-ups per second) of an idle spawned bot over --idle-seconds
- with --idle-only: only the idle bot (no connect runs, no bedrock-protocol client)
- with --build: release build time from clean (in a throw-away target dir)

Prints one JSON object. Needs `cargo build --release` done (or --build) and the peer installed.
"""
import argparse, json, os, socket, statistics, subprocess, sys, tempfile, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PEER = os.path.join(ROOT, "tests", "peer")
BIN = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "release", "clawcraft")


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_peer(port):
    p = subprocess.Popen(["node", os.path.join(PEER, "server.js"), "--port", str(port), "--scenario", "flat"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout:
        if '"listening"' in line:
            return p
    raise RuntimeError("peer did not start")


def clawcraft_spawn_ms(port):
    # The events file goes to a temp dir, not the working directory (the repo root).
    events = os.path.join(tempfile.gettempdir(), f"clawcraft-figures-events-{os.getpid()}.jsonl")
    env = dict(os.environ, HOST="127.0.0.1", PORT=str(port), USERNAME="BenchBot", RUST_LOG="warn",
               CLAWCRAFT_EVENTS=events)
    t0 = time.perf_counter()
    p = subprocess.Popen([BIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    for line in p.stdout:
        if json.loads(line).get("type") == "spawn":
            ms = (time.perf_counter() - t0) * 1000
            break
    else:
        raise RuntimeError("clawcraft did not spawn")
    return ms, p


def stop(p):
    try:
        p.stdin.close()
    except Exception:
        pass
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()


def proc_cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def per_thread(pid, read):
    """Sums `read(task_dir)` over the process's threads, by thread name (threads may end meanwhile)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        task = f"/proc/{pid}/task/{tid}"
        try:
            with open(f"{task}/comm") as f:
                name = f.read().strip()
            out[name] = out.get(name, 0) + read(task)
        except OSError:
            pass
    return out


def thread_cpu_ns(pid):
    """CPU time of each thread (by name) in ns, from schedstat (nanosecond resolution)."""

    def cpu(task):
        with open(f"{task}/schedstat") as f:
            return int(f.read().split()[0])

    return per_thread(pid, cpu)


def thread_wakeups(pid):
    """Voluntary context switches (≈ wake-ups from a sleep) of each thread, by name."""

    def wakeups(task):
        with open(f"{task}/status") as f:
            for line in f:
                if line.startswith("voluntary_ctxt_switches:"):
                    return int(line.split()[1])
        return 0

    return per_thread(pid, wakeups)


def rss_breakdown_mib(pid):
    """RSS split into file-backed pages (the executable, libraries) and anonymous ones."""
    with open(f"/proc/{pid}/status") as f:
        fields = {l.split(":")[0]: l.split()[1] for l in f if l.startswith(("RssAnon", "RssFile", "RssShmem"))}
    return {k: round(int(v) / 1024, 1) for k, v in fields.items()}


def proc_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--idle-seconds", type=int, default=60)
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--idle-only", action="store_true")
    ap.add_argument("--bin", help="the clawcraft binary to measure (default: the release build)")
    a = ap.parse_args()
    if a.bin:
        global BIN
        BIN = os.path.abspath(a.bin)
    out = {}
    if a.build:
        with tempfile.TemporaryDirectory() as td:
            t0 = time.perf_counter()
            subprocess.run(["cargo", "build", "--release", "--locked"], cwd=ROOT, check=True,
                           env=dict(os.environ, CARGO_TARGET_DIR=td), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            out["release_build_from_clean_s"] = round(time.perf_counter() - t0, 1)
    subprocess.run(["bash", os.path.join(PEER, "install.sh")], check=True, stdout=subprocess.DEVNULL)
    port = free_port()
    peer = start_peer(port)
    try:
        if not a.idle_only:
            ours = []
            for _ in range(a.runs):
                ms, p = clawcraft_spawn_ms(port)
                ours.append(round(ms, 1))
                stop(p)
            bp = subprocess.run(["node", os.path.join(PEER, "client-bench.js"), "--port", str(port), "--runs", str(a.runs)],
                                capture_output=True, text=True, check=True)
            bp_json = json.loads(bp.stdout.strip().splitlines()[-1])
            out["connect_to_spawn_ms"] = {
                "clawcraft": {"runs": ours, "median": statistics.median(ours)},
                "bedrock_protocol_client": bp_json,
            }
        ms, p = clawcraft_spawn_ms(port)
        time.sleep(1)
        rss_spawn, split_spawn = proc_rss_kib(p.pid), rss_breakdown_mib(p.pid)
        cpu0, t0, th0, w0 = proc_cpu_seconds(p.pid), time.perf_counter(), thread_cpu_ns(p.pid), thread_wakeups(p.pid)
        time.sleep(a.idle_seconds)
        cpu1, t1, th1, w1 = proc_cpu_seconds(p.pid), time.perf_counter(), thread_cpu_ns(p.pid), thread_wakeups(p.pid)
        secs = t1 - t0
        out["idle_spawned_bot"] = {
            "seconds": a.idle_seconds,
            "rss_mib_after_spawn": round(rss_spawn / 1024, 1),
            "rss_split_after_spawn_mib": split_spawn,
            "rss_mib_at_end": round(proc_rss_kib(p.pid) / 1024, 1),
            "rss_split_at_end_mib": rss_breakdown_mib(p.pid),
            "cpu_percent_of_one_core": round(100 * (cpu1 - cpu0) / secs, 2),
            "cpu_percent_by_thread": {
                name: round(100 * (ns - th0.get(name, 0)) / 1e9 / secs, 2) for name, ns in th1.items()
            },
            # CPU per 50 ms tick period, and how often each thread woke up.
            "ms_per_tick_by_thread": {
                name: round((ns - th0.get(name, 0)) / 1e6 / (secs * 20), 3) for name, ns in th1.items()
            },
            "wakeups_per_s_by_thread": {name: round((n - w0.get(name, 0)) / secs, 1) for name, n in w1.items()},
        }
        stop(p)
    finally:
        peer.kill()
    print(json.dumps(out))


if __name__ == "__main__":
    sys.exit(main())
