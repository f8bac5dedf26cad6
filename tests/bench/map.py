#!/usr/bin/env python3
"""What the live map page costs the bot (a bench script; run by tests/bench/report.py, README's
live map row).

  python3 tests/bench/map.py [--runs 3] [--seconds 20] [--bin PATH]

Each run starts one release `clawcraft --map` bot on the peer's mixed world and measures it for
--seconds in each phase, in this order: idle with no page open, idle with the page open in
headless Chromium (Debian's `chromium` and `chromium-driver`, driven through chromedriver's
WebDriver API), idle with the page closed again; then walking back and forth between two points
12 blocks apart (so the map changes and the page updates a few times a second) with no page,
with the page open, with no page again. Each phase gives the tick interval observed at the peer
(the gaps between the PlayerAuthInput packets it logs: mean, p50, p99, max), the bot's CPU (% of
one core, from each thread's scheduler run time: the whole process, the game thread, the map's
threads) and, with the page open, how
many frames the page received per second (read back from it).

Prints one JSON object: for each phase and figure the mean over the runs, the standard
deviation and the range (`mean ± sd [min–max]`), and for each workload the page's cost — open
minus the mean of the two closed phases around it, per run — next to the closed phases' own
run-to-run spread.
"""
import argparse, json, os, shutil, socket, statistics, subprocess, sys, tempfile, threading, time, urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PEER = os.path.join(ROOT, "tests", "peer")
BIN = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "release", "clawcraft")
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1000"]


def free_port(kind=socket.SOCK_STREAM):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def thread_cpu_ns(pid):
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
        except OSError:
            continue
        # The game loop runs on the main thread; the map's threads (the frame builder, the
        # accepting thread, one per connection, which come and go) are one bucket.
        if tid == str(pid):
            key = "game"
        elif name.startswith("map-"):
            key = "map"
        else:
            key = name
        out[key] = out.get(key, 0) + ns
        out["all"] = out.get("all", 0) + ns
    return out


def input_times(log, since_ms, until_ms):
    times = []
    with open(log) as f:
        for line in f:
            if '"player_auth_input"' not in line:
                continue
            try:
                v = json.loads(line)
            except ValueError:
                continue
            t = v.get("t")
            if v.get("name") == "player_auth_input" and isinstance(t, (int, float)) and since_ms <= t <= until_ms:
                times.append(t)
    return times


def quantile(values, p):
    v = sorted(values)
    return v[max(0, min(len(v) - 1, int(round(p * len(v) + 0.5)) - 1))] if v else None


def measure(pid, log, seconds, page=None):
    """One phase: the peer's input gaps and the bot's CPU over `seconds`."""
    frames0 = page.eval("return window.clawcraftMap.frames") if page else None
    t0, wall0 = time.time() * 1000, time.perf_counter()
    th0 = thread_cpu_ns(pid)
    time.sleep(seconds)
    th1 = thread_cpu_ns(pid)
    t1, secs = time.time() * 1000, time.perf_counter() - wall0
    frames1 = page.eval("return window.clawcraftMap.frames") if page else None
    time.sleep(0.5)  # the peer's log catches up
    times = input_times(log, t0, t1)
    gaps = [b - a for a, b in zip(times, times[1:])]
    pct = lambda ns: round(100 * ns / 1e9 / secs, 2)
    out = {
        "seconds": round(secs, 1),
        "tick_interval_ms": {"inputs": len(times), "mean": round(statistics.mean(gaps), 2) if gaps else None,
                             "p50": quantile(gaps, 0.5), "p99": quantile(gaps, 0.99), "max": max(gaps) if gaps else None},
        "cpu_percent_of_one_core": pct(th1.get("all", 0) - th0.get("all", 0)),
        "game_thread_cpu_percent": pct(th1.get("game", 0) - th0.get("game", 0)),
        "map_threads_cpu_percent": pct(th1.get("map", 0) - th0.get("map", 0)),
    }
    if page:
        out["page_frames_per_s"] = round((frames1 - frames0) / secs, 2)
    return out


class Walker:
    """Reads the bot's stdout; while walking, sends the next walk when one ends."""

    POINTS = [(12.5, -60, 0.5), (0.5, -60, 0.5)]

    def __init__(self, bot):
        self.bot = bot
        self.walking = threading.Event()
        self.walks = 0
        self.next = 0
        self.lock = threading.Lock()
        threading.Thread(target=self.read, daemon=True).start()

    def send(self):
        x, y, z = self.POINTS[self.next % 2]
        self.next += 1
        with self.lock:
            self.bot.stdin.write(json.dumps({"action": "walk", "x": x, "y": y, "z": z, "id": f"walk-{self.next}"}) + "\n")
            self.bot.stdin.flush()

    def read(self):
        for line in self.bot.stdout:
            try:
                v = json.loads(line)
            except ValueError:
                continue
            failed = v.get("type") == "response" and str(v.get("id", "")).startswith("walk-") and v.get("code")
            if v.get("type") == "walk_done" or failed:
                self.walks += 1
                if self.walking.is_set():
                    if failed:
                        time.sleep(0.5)
                    self.send()

    def start(self):
        self.walking.set()
        self.send()

    def stop(self):
        """Stops after the walk under way."""
        self.walking.clear()


class Page:
    """Headless Chromium showing the map, through chromedriver."""

    def __init__(self, url):
        port = free_port()
        self.driver = subprocess.Popen([CHROMEDRIVER, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{port}"
        self.profile = tempfile.mkdtemp(prefix="clawcraft-bench-chromium-")
        for _ in range(200):
            try:
                if self.call("GET", "/status")["ready"]:
                    break
            except OSError:
                time.sleep(0.05)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": CHROMIUM, "args": FLAGS + [f"--user-data-dir={self.profile}"]}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]
        self.call("POST", f"/session/{self.session}/url", {"url": url})
        deadline = time.time() + 30
        # The whole map, the bot and its panel drawn.
        while not self.eval("const S = window.clawcraftMap; return !!S && S.frames > 0 && S.tiles.size > 0 "
                            "&& S.bots.length > 0 && Object.keys(S.panels).length > 0"):
            if time.time() > deadline:
                raise RuntimeError("the page never drew the map")
            time.sleep(0.2)

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())["value"]

    def eval(self, script):
        return self.call("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": []})

    def close(self):
        try:
            self.call("DELETE", f"/session/{self.session}")
        except OSError:
            pass
        self.driver.kill()
        self.driver.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def one_run(binary, seconds):
    """One bot, its six phases."""
    work = tempfile.mkdtemp(prefix="clawcraft-bench-map-")
    log = os.path.join(work, "packets.jsonl")
    port, map_port = free_port(socket.SOCK_DGRAM), free_port()
    peer = subprocess.Popen(["node", "--single-threaded-gc", os.path.join(PEER, "server.js"), "--port", str(port),
                             "--scenario", "flat", "--world", "mixed", "--log", log],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    bot = page = None
    try:
        for line in peer.stdout:
            if '"listening"' in line:
                break
        env = dict(os.environ, HOST="127.0.0.1", PORT=str(port), USERNAME="MapBench", RUST_LOG="warn",
                   CLAWCRAFT_EVENTS=os.path.join(work, "events.jsonl"), CLAWCRAFT_PORT=str(free_port()),
                   CLAWCRAFT_MAP=f"127.0.0.1:{map_port}")
        env.pop("CLAWCRAFT_TOKEN", None)
        bot = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        for line in bot.stdout:
            if json.loads(line).get("type") == "spawn":
                break
        # The peer's stdout is drained so it never blocks; the bot's is read by the walker.
        subprocess.Popen(["cat"], stdin=peer.stdout, stdout=subprocess.DEVNULL)
        walker = Walker(bot)
        time.sleep(3)  # the chunks are in, the bot stands idle
        out = {"idle_closed": measure(bot.pid, log, seconds)}
        page = Page(f"http://127.0.0.1:{map_port}/")
        time.sleep(2)  # the page's first full frame is drawn
        out["idle_open"] = measure(bot.pid, log, seconds, page)
        page.close()
        page = None
        time.sleep(2)
        out["idle_closed_again"] = measure(bot.pid, log, seconds)
        walker.start()
        time.sleep(2)
        out["walking_closed"] = measure(bot.pid, log, seconds)
        page = Page(f"http://127.0.0.1:{map_port}/")
        time.sleep(2)
        out["walking_open"] = measure(bot.pid, log, seconds, page)
        page.close()
        page = None
        time.sleep(2)
        out["walking_closed_again"] = measure(bot.pid, log, seconds)
        walker.stop()
        out["walks"] = walker.walks
        return out
    finally:
        if page:
            page.close()
        if bot:
            try:
                bot.stdin.close()
                bot.wait(timeout=10)
            except Exception:
                bot.kill()
        peer.kill()
        shutil.rmtree(work, ignore_errors=True)


FIGURES = [("tick_interval_ms", "mean"), ("tick_interval_ms", "p50"), ("tick_interval_ms", "p99"),
           ("tick_interval_ms", "max"), ("cpu_percent_of_one_core",), ("game_thread_cpu_percent",),
           ("map_threads_cpu_percent",), ("page_frames_per_s",)]


def figure(phase, path):
    v = phase
    for k in path:
        v = v.get(k) if isinstance(v, dict) else None
    return v


def spread(values):
    """`mean ± sd [min–max]` of some runs' values."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.3g} ± {sd:.2g} [{min(values):.3g}–{max(values):.3g}]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--bin")
    a = ap.parse_args()
    binary = os.path.abspath(a.bin) if a.bin else BIN
    subprocess.run(["bash", os.path.join(PEER, "install.sh")], check=True, stdout=subprocess.DEVNULL)
    runs = [one_run(binary, a.seconds) for _ in range(a.runs)]
    out = {"runs": a.runs, "seconds_per_phase": a.seconds, "walks_per_run": [r["walks"] for r in runs]}
    phases = [k for k in runs[0] if k != "walks"]
    for phase in phases:
        row = {}
        for path in FIGURES:
            s = spread([figure(r[phase], path) for r in runs])
            if s is not None:
                row[".".join(path)] = s
        out[phase] = row
    # The page's cost per run: open minus the mean of the closed phases before and after it.
    for work in ("idle", "walking"):
        cost = {}
        for path in [("cpu_percent_of_one_core",), ("game_thread_cpu_percent",), ("tick_interval_ms", "p99")]:
            diffs, closed = [], []
            for r in runs:
                c = [figure(r[f"{work}_closed"], path), figure(r[f"{work}_closed_again"], path)]
                o = figure(r[f"{work}_open"], path)
                if None in c or o is None:
                    continue
                diffs.append(o - statistics.mean(c))
                closed += c
            key = ".".join(path)
            cost[f"{key} open minus closed"] = spread(diffs)
            cost[f"{key} closed phases' spread (sd)"] = round(statistics.stdev(closed), 3) if len(closed) > 1 else None
        out[f"{work}_page_cost"] = cost
    print(json.dumps(out))


if __name__ == "__main__":
    sys.exit(main())
