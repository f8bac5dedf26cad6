#!/usr/bin/env python3
"""Runs every benchmark and writes their figures to tests/bench/REPORT.md (and report.json).

  python3 tests/bench/report.py            # every bench (release builds first; ~30 min on 2 cores)
  python3 tests/bench/report.py --only astar,tick   # refresh some sections, keep the others
  python3 tests/bench/report.py --list     # the benches and their commands

The report is generated, never edited by hand: each section is one bench's command, when and on
what commit it ran, the machine's load when it started, and what the bench printed (JSON lines
become tables, other lines are kept as printed). A bench that fails keeps its previous section and
the failure is printed here. README's headline figures are a few of these rows.
"""
import argparse, datetime, json, os, platform, subprocess, sys, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT_MD = os.path.join(ROOT, "tests", "bench", "REPORT.md")
OUT_JSON = os.path.join(ROOT, "tests", "bench", "report.json")

# Benches whose figures are printed on stderr as tables and lists (only those lines are kept:
# cargo's and the peer's logs share the stream).
STDERR = {"agent_tasks"}
FIGURE_LINE = ("|", "- ", "characters per call")

# (name, what it measures, command). Order: quick CPU-only benches first, then those that run the
# release binary against the test peer.
BENCHES = [
    ("tick", "CPU time of one idle game tick, and the machine's floor for any 20 Hz bot",
     ["cargo", "bench", "--bench", "tick"]),
    ("codec", "packet codec and RakNet: ns per encode/decode, protocol load time",
     ["cargo", "bench", "-p", "clawcraft-protocol", "--bench", "codec"]),
    ("chunk_decode", "sub-chunk decode throughput and memory per loaded column",
     ["cargo", "bench", "-p", "clawcraft-world", "--bench", "chunk_decode"]),
    ("queries", "scan and find on a loaded world",
     ["cargo", "bench", "-p", "clawcraft-world", "--bench", "queries"]),
    ("shared_store", "the shared block store: hit/miss decode cost, memory of N bots' worlds",
     ["cargo", "bench", "-p", "clawcraft-world", "--bench", "shared_store"]),
    ("physics", "Physics::tick cost and walking/sprinting speed against vanilla",
     ["cargo", "bench", "-p", "clawcraft-physics"]),
    ("astar", "A* on 256×256 rough terrain: 40- and 200-block paths, snapshot, pool hop",
     ["cargo", "bench", "-p", "clawcraft-pathfind", "--bench", "astar"]),
    ("render", "render and map_image PNGs on one core",
     ["cargo", "bench", "-p", "clawcraft-view", "--bench", "render"]),
    ("crafting", "decoding a vanilla-sized recipe list and building the recipe book",
     ["cargo", "bench", "--bench", "crafting"]),
    ("skills", "skill runtime: start overhead, ops/s, memory, helper call costs",
     ["cargo", "bench", "--bench", "skills"]),
    ("tcp_latency", "one-shot and persistent TCP answers against the peer; tick steadiness under floods",
     ["cargo", "bench", "--bench", "tcp_latency"]),
    ("figures", "connect → spawn against bedrock-protocol's own client; idle RSS and CPU",
     ["python3", "tests/bench/figures.py"]),
    ("map", "the live map page (--map) open and updating in headless Chromium vs closed: peer tick interval, bot CPU",
     ["python3", "tests/bench/map.py"]),
    ("agent_tasks", "calls and characters a scripted agent needs per task, without and with wait",
     ["cargo", "test", "--release", "--test", "agent_tasks", "--", "--nocapture", "--test-threads", "1"]),
    # (its tables go to stderr, which libtest does not capture with --nocapture)
    ("swarm", "N bots in one process vs N processes (its own report: swarm-report.md)",
     ["python3", "tests/bench/swarm.py"]),
]


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu or platform.machine()}, {platform.system()} {platform.release()}"


def run(name, cmd):
    env = dict(os.environ, RUST_LOG=os.environ.get("RUST_LOG", "warn"))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    began = time.monotonic()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    seconds = time.monotonic() - began
    if p.returncode != 0:
        sys.stderr.write(f"{name}: exit {p.returncode}\n{p.stderr[-4000:]}\n")
        return None
    return {
        "name": name,
        "command": " ".join(cmd),
        "commit": git("rev-parse", "--short", "HEAD") + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else ""),
        "ran": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load": load,
        "seconds": round(seconds, 1),
        "stdout": p.stdout + ("\n" + "\n".join(
            l for l in p.stderr.splitlines() if l.strip().startswith(FIGURE_LINE)) if name in STDERR else ""),
    }


def flatten(value, prefix=""):
    """(key path, scalar) pairs of a JSON value, lists of scalars joined."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from flatten(v, f"{prefix}.{k}" if prefix else k)
    elif isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        for i, v in enumerate(value):
            yield from flatten(v, f"{prefix}[{i}]")
    else:
        if isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        yield prefix, value


def render_output(stdout):
    """Markdown for a bench's stdout: JSON objects as tables, other lines as printed."""
    parts, text, table = [], [], []

    def flush_text():
        if text:
            parts.append("```\n" + "\n".join(text) + "\n```")
            text.clear()
        if table:
            parts.append("\n".join(table))
            table.clear()

    for line in stdout.splitlines():
        stripped = line.strip()
        obj = None
        if stripped.startswith("{"):
            try:
                obj = json.loads(stripped)
            except json.JSONDecodeError:
                obj = None
        if stripped.startswith("|"):
            if text:
                flush_text()
            table.append(stripped)
            continue
        if table:
            flush_text()
        if isinstance(obj, dict):
            flush_text()
            rows = [f"| {k} | {v} |" for k, v in flatten(obj)]
            parts.append("| figure | value |\n|---|---|\n" + "\n".join(rows))
        elif stripped:
            text.append(line.rstrip())
    flush_text()
    return "\n\n".join(parts) if parts else "_(no output)_"


def write(sections):
    order = [b[0] for b in BENCHES]
    what = {b[0]: b[1] for b in BENCHES}
    lines = [
        "# Benchmark report",
        "",
        "Generated by `python3 tests/bench/report.py` (all benches) or `--only NAME,…` (some); do not edit",
        "by hand. Each section says when, on which commit and on what machine its bench ran, and the",
        "machine's 1-minute load average when it started (figures taken under load are slower).",
        "",
        "| bench | what it measures | ran | commit | load | seconds |",
        "|---|---|---|---|---|---|",
    ]
    present = [n for n in order if n in sections]
    for n in present:
        s = sections[n]
        load = "" if s.get("load") is None else f"{s['load']:.2f}"
        lines.append(f"| [{n}](#{n}) | {what[n]} | {s['ran']} | {s['commit']} | {load} | {s['seconds']} |")
    for n in present:
        s = sections[n]
        lines += ["", f"## {n}", "", f"{what[n]}. `{s['command']}` on {s['machine']}.", "",
                  render_output(s["stdout"])]
    with open(OUT_MD, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(OUT_JSON, "w") as f:
        json.dump({n: sections[n] for n in present}, f, indent=1)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated bench names to run (the others keep their section)")
    ap.add_argument("--list", action="store_true", help="print the benches and their commands")
    args = ap.parse_args()
    if args.list:
        for name, what, cmd in BENCHES:
            print(f"{name:<13} {' '.join(cmd)}\n{'':<13} {what}")
        return 0
    names = [b[0] for b in BENCHES]
    chosen = names if not args.only else [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in chosen if n not in names]
    if unknown:
        sys.stderr.write(f"unknown bench(es): {', '.join(unknown)}; --list shows them\n")
        return 2
    sections = {}
    if os.path.exists(OUT_JSON):
        with open(OUT_JSON) as f:
            sections = json.load(f)
    # The benches that run the binary against the peer need the release build and the peer.
    if any(n in ("tcp_latency", "figures", "swarm") for n in chosen):
        subprocess.run(["cargo", "build", "--release", "--bin", "clawcraft"], cwd=ROOT, check=True)
        subprocess.run(["bash", "tests/peer/install.sh"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    failed = []
    for name, _, cmd in BENCHES:
        if name not in chosen:
            continue
        sys.stderr.write(f"== {name}: {' '.join(cmd)}\n")
        result = run(name, cmd)
        if result is None:
            failed.append(name)
            continue
        sections[name] = result
        write(sections)
    write(sections)
    if failed:
        sys.stderr.write(f"failed (previous sections kept): {', '.join(failed)}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
