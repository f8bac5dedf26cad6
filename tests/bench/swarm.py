#!/usr/bin/env python3
"""Swarm figures (issue 30): many idle bots on the test peer, in one process and as many processes.

  python3 tests/bench/swarm.py [--sizes 1,10,50,100] [--idle-seconds 40] [--processes 100]
                               [--no-walker] [--bin PATH] [--out tests/bench/swarm-report]

A bench script, not a test (CI never runs it). For each size N it starts the flat test peer
(`tests/peer/server.js`, its packet log on), then ONE release `clawcraft` process with a swarm
of N bots (`CLAWCRAFT_SWARM='{"count":N}'`), and measures:

- start-up: process start -> the last bot's `spawn` event;
- after the last spawn + 12 s (the start-up page release is due 10 s after it), over
  --idle-seconds: RSS (VmRSS, anonymous / file-backed, PSS) and CPU % of one core of the bot
  process (utime + stime from /proc/PID/stat), the peer's own CPU, the whole machine's busy
  share (what the other builds on the box took);
- at the peer: the interval between PlayerAuthInputs of each bot, per username, p50 / p99 / max
  of every bot, the worst bot's and all bots pooled — at its socket (the bots' datagrams on the
  loopback interface with kernel timestamps; needs root or CAP_NET_RAW, else left out) and in
  its packet log (`rx`: when Node's JavaScript got each one); the bots' own tick spacing
  (`status`) and a one-bot control process beside each swarm, same peer, same window.

Then the same with `--processes` separate processes of the binary, one bot each, started
together (RSS and PSS summed over them; PSS shares the executable's pages fairly), and the
walker run: the largest swarm with one bot walking back and forth while the others stand.

Writes <out>.json and <out>.md (generated: do not edit by hand). Needs
`cargo build --release` done (or --bin) and the peer installed (this runs tests/peer/install.sh).
"""
import argparse, json, math, os, signal, socket, statistics, struct, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figures  # noqa: E402  (the /proc helpers of the single-bot figures)

ROOT = figures.ROOT
PEER = figures.PEER
TICK = os.sysconf("SC_CLK_TCK")
SETTLE_S = 12  # after the last spawn: the start-up page release (10 s) is done
GOALS = {"rss_mib": 150, "cpu_percent": 20, "input_p99_ms": 55, "startup_s": 10}


def log(*a):
    print("[swarm]", *a, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------------
# /proc readings


def cpu_s(pid):
    try:
        return figures.proc_cpu_seconds(pid)
    except OSError:
        return 0.0


def memory(pids):
    """VmRSS, RssAnon, RssFile and Pss (smaps_rollup) in MiB, summed over `pids`."""
    out = {"rss": 0, "anon": 0, "file": 0, "pss": 0}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                st = {l.split(":")[0]: int(l.split()[1]) for l in f if l.startswith(("VmRSS", "RssAnon", "RssFile"))}
            with open(f"/proc/{pid}/smaps_rollup") as f:
                pss = next(int(l.split()[1]) for l in f if l.startswith("Pss:"))
        except (OSError, StopIteration):
            continue
        out["rss"] += st.get("VmRSS", 0)
        out["anon"] += st.get("RssAnon", 0)
        out["file"] += st.get("RssFile", 0)
        out["pss"] += pss
    return {k + "_mib": round(v / 1024, 1) for k, v in out.items()}


def machine_busy():
    """(busy, total) jiffies of the whole machine (/proc/stat), for the other load on the box."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


class Window:
    """CPU of some processes, the peer and the machine over a measuring window."""

    def __init__(self, pids, peer_pid):
        self.pids, self.peer_pid = pids, peer_pid
        self.t0 = time.time()
        self.c0 = sum(cpu_s(p) for p in pids)
        self.p0 = cpu_s(peer_pid)
        self.m0 = machine_busy()
        self.load0 = loadavg()
        self.th0 = figures.thread_cpu_ns(pids[0]) if len(pids) == 1 else None

    def close(self):
        secs = time.time() - self.t0
        c1, p1, m1 = sum(cpu_s(p) for p in self.pids), cpu_s(self.peer_pid), machine_busy()
        cores = os.cpu_count() or 1
        busy = (m1[0] - self.m0[0]) / max(1, m1[1] - self.m0[1]) * 100 * cores
        bot = 100 * (c1 - self.c0) / secs
        peer = 100 * (p1 - self.p0) / secs
        out = {
            "seconds": round(secs, 1),
            "window_ms": [int(self.t0 * 1000), int((self.t0 + secs) * 1000)],
            "cpu_percent_of_one_core": round(bot, 1),
            "peer_cpu_percent_of_one_core": round(peer, 1),
            "machine_busy_percent_of_one_core": round(busy, 1),
            "other_load_percent_of_one_core": round(max(0.0, busy - bot - peer), 1),
            "cores": cores,
            "loadavg": [self.load0, loadavg()],
        }
        if self.th0 is not None:
            th1 = figures.thread_cpu_ns(self.pids[0])
            out["cpu_percent_by_thread"] = {
                n: round(100 * (ns - self.th0.get(n, 0)) / 1e9 / secs, 2) for n, ns in th1.items() if ns - self.th0.get(n, 0) > 0
            }
        return out


# ----------------------------------------------------------------------------------------------
# The peer and its packet log


class Peer:
    def __init__(self, tmp, max_players):
        self.port = figures.free_port()
        self.log = os.path.join(tmp, "peer-packets.jsonl")
        self.p = subprocess.Popen(
            ["node", "--single-threaded-gc", os.path.join(PEER, "server.js"), "--port", str(self.port), "--scenario", "flat",
             "--max-players", str(max_players), "--log", self.log],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=open(os.path.join(tmp, "peer-stderr.txt"), "w"), text=True)
        for line in self.p.stdout:
            if '"listening"' in line:
                break
        else:
            raise RuntimeError("peer did not start")
        self.client_ports = {}  # connection number -> the client's UDP port
        # keep draining its stdout (a full pipe would stop it)
        threading.Thread(target=self._read, daemon=True).start()
        time.sleep(1)  # its chunk warm-up

    def _read(self):
        for line in self.p.stdout:
            if '"connect"' in line:
                v = json.loads(line)
                self.client_ports[v["client"]] = int(v["address"].rsplit("/", 1)[1])

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()

    @property
    def names(self):
        """{connection number: username}, from the packet log's login lines."""
        names = {}
        with open(self.log) as f:
            for line in f:
                if '"login"' in line[:60]:
                    v = json.loads(line)
                    if v.get("name") == "login":
                        names[v.get("client")] = v.get("username")
        return names

    def inputs(self, window_ms):
        """{username: [arrival ms of each PlayerAuthInput in the window]} and {username: [feet x of accepted positions]}."""
        names, times, xs = self.names, {}, {}
        lo, hi = window_ms
        with open(self.log) as f:
            for line in f:
                if '"player_auth_input"' in line[:60]:
                    v = json.loads(line)
                    t = v.get("rx", v["t"])  # when its datagram reached the peer's JavaScript
                    if lo <= t <= hi:
                        times.setdefault(names.get(v.get("client")), []).append(t)
                elif '"__auth_pos"' in line[:60]:
                    v = json.loads(line)
                    if lo <= v["t"] <= hi and v.get("accepted"):
                        xs.setdefault(names.get(v.get("client")), []).append(v["x"])
        return times, xs


class Wire(threading.Thread):
    """Times the bots' datagrams to the peer's port on the loopback interface, with the kernel's
    timestamps (an AF_PACKET socket bound to `lo`, root only): when each datagram reached the
    peer's socket, whatever the Node peer's own scheduling does after that. RakNet data datagrams
    only (first byte 0x80 set, ACK 0x40 / NAK 0x20 clear): an idle bot sends one per tick, its
    batch with the PlayerAuthInput."""

    SO_TIMESTAMPNS, SO_ATTACH_FILTER, PACKET_IGNORE_OUTGOING, SOL_PACKET = 35, 26, 23, 263

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.times, self.stopped = port, {}, threading.Event()
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x0800))
        self.sock.setsockopt(socket.SOL_SOCKET, self.SO_TIMESTAMPNS, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
        self.sock.setsockopt(self.SOL_PACKET, self.PACKET_IGNORE_OUTGOING, 1)  # each loopback datagram once
        # classic BPF on the IP header: UDP, not a fragment, destination port == the peer's, a RakNet
        # data datagram (first payload byte & 0xE0 == 0x80)
        prog = [(0x30, 0, 0, 9), (0x15, 0, 9, 17), (0x28, 0, 0, 6), (0x45, 7, 0, 0x1FFF), (0xB1, 0, 0, 0),
                (0x48, 0, 0, 2), (0x15, 0, 4, port), (0x50, 0, 0, 8), (0x54, 0, 0, 0xE0), (0x15, 0, 1, 0x80),
                (0x06, 0, 0, 0x40000), (0x06, 0, 0, 0)]
        import ctypes
        self._filter = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in prog))
        fprog = struct.pack("HL", len(prog), ctypes.addressof(self._filter))
        self.sock.setsockopt(socket.SOL_SOCKET, self.SO_ATTACH_FILTER, fprog)
        self.sock.bind(("lo", 0))
        self.sock.settimeout(0.2)

    def run(self):
        while not self.stopped.is_set():
            try:
                data, anc, _, _ = self.sock.recvmsg(64, socket.CMSG_SPACE(16))
            except socket.timeout:
                continue
            ihl = (data[0] & 0x0F) * 4
            if len(data) <= ihl + 8 or data[9] != 17 or (data[ihl + 8] & 0xE0) != 0x80:
                continue
            src, dst = struct.unpack("!HH", data[ihl:ihl + 4])
            if dst != self.port:
                continue
            ts = next((struct.unpack("qq", d[:16]) for lvl, typ, d in anc if typ == self.SO_TIMESTAMPNS), None)
            if ts:
                self.times.setdefault(src, []).append(ts[0] * 1000 + ts[1] / 1e6)

    def stop(self, names, client_ports):
        """{username: [ms of each data datagram]}, named through the peer's connections."""
        self.stopped.set()
        self.join(5)
        self.sock.close()
        by_port = {port: names.get(c) for c, port in client_ports.items()}
        return {by_port.get(p, f"port {p}"): ts for p, ts in self.times.items()}


def quantile(values, p):
    v = sorted(values)
    if not v:
        return None
    return v[min(len(v), max(1, math.ceil(len(v) * p))) - 1]  # as tests/common's quantile


def own_ticks(before, after):
    """The bots' own tick spacing over the window (diff of two `status` readings): how many
    intervals were over 55 ms, in all and for the worst bot."""
    keys = ["within55ms", "within75ms", "within100ms", "over100ms"]
    per = {}
    for name, a in after.items():
        b = before.get(name)
        if b:
            per[name] = [a[k] - b[k] for k in keys]
    if not per:
        return None
    total = [sum(v[i] for v in per.values()) for i in range(4)]
    worst = max(per, key=lambda n: sum(per[n][1:]))
    return {"bots": len(per), "intervals": sum(total), "over_55ms": sum(total[1:]), "over_100ms": total[3],
            "worst_bot": worst, "worst_bot_over_55ms": sum(per[worst][1:]), "worst_bot_intervals": sum(per[worst])}


def tick_spread(times):
    """How far apart one tick's datagrams of all the bots left (socket times, ms): the first to the
    last of each tick's burst (bursts = datagrams closer than 15 ms; those holding nearly every
    bot)."""
    events = sorted(t for ts in times.values() for t in ts)
    if len(times) < 2 or not events:
        return None
    bursts, cur = [], [events[0]]
    for t in events[1:]:
        if t - cur[-1] > 15:
            bursts.append(cur)
            cur = []
        cur.append(t)
    bursts.append(cur)
    spread = [b[-1] - b[0] for b in bursts if len(b) >= 0.9 * len(times)]
    if not spread:
        return None
    return {"ticks": len(spread), "p50": r1(quantile(spread, 0.5)), "p99": r1(quantile(spread, 0.99)), "max": r1(max(spread))}


def peer_delay(wire, log):
    """How long the peer took from a datagram on its socket to the packet's `rx` in JavaScript
    (ms; each socket time matched to the bot's next `rx`): the peer's own share of the log's
    intervals."""
    delays = []
    for name, ws in wire.items():
        rx, j = sorted(log.get(name, [])), 0
        for t in sorted(ws):
            while j < len(rx) and rx[j] < t:
                j += 1
            if j < len(rx):
                delays.append(rx[j] - t)
                j += 1
    if not delays:
        return None
    return {"p50": r1(quantile(delays, 0.5)), "p99": r1(quantile(delays, 0.99)), "max": r1(max(delays))}


def r1(x):
    return round(x, 1)


def interval_figures(times, only=None):
    """p50/p99/max of the gaps between a bot's inputs, per bot, the worst bot's and pooled."""
    per_bot, pooled = {}, []
    for name, ts in times.items():
        if only is not None and name not in only:
            continue
        ts = sorted(ts)
        gaps = [b - a for a, b in zip(ts, ts[1:])]
        if not gaps:
            continue
        pooled += gaps
        per_bot[name] = {"inputs": len(ts), "p50": r1(quantile(gaps, 0.5)), "p99": r1(quantile(gaps, 0.99)), "max": r1(max(gaps))}
    if not per_bot:
        return {"bots": 0}
    worst99 = max(per_bot, key=lambda n: (per_bot[n]["p99"], per_bot[n]["max"]))
    worstmax = max(per_bot, key=lambda n: per_bot[n]["max"])
    over = [n for n, f in per_bot.items() if f["p99"] > GOALS["input_p99_ms"]]
    return {
        "bots": len(per_bot),
        "all": {"p50": r1(quantile(pooled, 0.5)), "p99": r1(quantile(pooled, 0.99)), "max": r1(max(pooled)), "gaps": len(pooled)},
        "worst_bot_by_p99": {"name": worst99, **per_bot[worst99]},
        "worst_bot_by_max": {"name": worstmax, **per_bot[worstmax]},
        "median_bot_p99": statistics.median(f["p99"] for f in per_bot.values()),
        "bots_over_p99_goal": len(over),
    }


# ----------------------------------------------------------------------------------------------
# The bots


def bot_env(tmp, tag, port, extra):
    env = dict(os.environ, HOST="127.0.0.1", PORT=str(port), RUST_LOG="warn", CLAWCRAFT_TCP="false",
               CLAWCRAFT_EVENTS=os.path.join(tmp, f"events-{tag}.jsonl"), CLAWCRAFT_SKILLS_DIR=os.path.join(tmp, f"skills-{tag}"))
    env.pop("CLAWCRAFT_TOKEN", None)
    env.update(extra)
    return env


class Swarm:
    """One clawcraft process running `n` bots, its stdout read on a thread."""

    def __init__(self, bin_, tmp, port, n):
        self.n = n
        self.names = [f"Bot{i:0{len(str(n))}d}" for i in range(1, n + 1)]
        self.spawned = {}
        self.lines = []
        self.cond = threading.Condition()
        self.t0 = time.time()
        self.p = subprocess.Popen([bin_], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(os.path.join(tmp, f"swarm{n}-stderr.txt"), "w"),
                                  text=True, env=bot_env(tmp, f"swarm{n}", port, {"CLAWCRAFT_SWARM": json.dumps({"count": n})}))
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            try:
                v = json.loads(line)
            except ValueError:
                continue
            with self.cond:
                if v.get("type") == "spawn":
                    self.spawned.setdefault(v.get("bot", self.names[0]), time.time())
                self.lines.append(v)
                self.cond.notify_all()

    def wait(self, pred, timeout):
        deadline = time.time() + timeout
        with self.cond:
            while True:
                for v in self.lines:
                    if pred(v):
                        return v
                left = deadline - time.time()
                if left <= 0 or self.p.poll() is not None:
                    return None
                self.cond.wait(left)

    def wait_spawned(self, timeout):
        deadline = time.time() + timeout
        with self.cond:
            while len(self.spawned) < self.n and time.time() < deadline and self.p.poll() is None:
                self.cond.wait(1)
        return len(self.spawned) == self.n

    def send(self, obj):
        self.p.stdin.write(json.dumps(obj) + "\n")
        self.p.stdin.flush()

    def tick_counts(self, tag):
        """{bot: its own tick-interval counts} from `status` (the bot's view of its 20 Hz)."""
        for name in self.names:
            self.send({"action": "status", "bot": name, "id": f"{tag}-{name}"})
        out = {}
        for name in self.names:
            v = self.wait(lambda v, i=f"{tag}-{name}": v.get("type") == "response" and v.get("id") == i, 30)
            if v:
                out[name] = v["stats"]["tickIntervals"]
        return out

    def stop(self):
        figures.stop(self.p)


class Processes:
    """`n` clawcraft processes of one bot each, stdout to a file each."""

    def __init__(self, bin_, tmp, port, n, prefix="Proc"):
        self.n, self.tmp = n, tmp
        self.names = [f"{prefix}{i:0{len(str(n))}d}" for i in range(1, n + 1)]
        self.t0 = time.time()
        self.ps = []
        for name in self.names:
            out = open(os.path.join(tmp, f"{name}.out"), "w")
            self.ps.append(subprocess.Popen([bin_], stdin=subprocess.PIPE, stdout=out, stderr=subprocess.DEVNULL, text=True,
                                            env=bot_env(tmp, name, port, {"USERNAME": name})))
        self.spawned = {}

    def wait_spawned(self, timeout):
        deadline = time.time() + timeout
        while len(self.spawned) < self.n and time.time() < deadline:
            for name in self.names:
                if name in self.spawned:
                    continue
                with open(os.path.join(self.tmp, f"{name}.out")) as f:
                    if '"type":"spawn"' in f.read():
                        self.spawned[name] = time.time()
            time.sleep(0.05)
        return len(self.spawned) == self.n

    def tick_counts(self, tag):
        """{bot: its own tick-interval counts} from each process's `status`."""
        for p in self.ps:
            p.stdin.write(json.dumps({"action": "status", "id": tag}) + "\n")
            p.stdin.flush()
        out, deadline = {}, time.time() + 30
        while len(out) < self.n and time.time() < deadline:
            for name in self.names:
                if name in out:
                    continue
                with open(os.path.join(self.tmp, f"{name}.out")) as f:
                    for line in f:
                        if f'"id":"{tag}"' in line:
                            out[name] = json.loads(line)["stats"]["tickIntervals"]
            time.sleep(0.05)
        return out

    @property
    def pids(self):
        return [p.pid for p in self.ps]

    def stop(self):
        for p in self.ps:
            try:
                p.stdin.close()
            except OSError:
                pass
        for p in self.ps:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


# ----------------------------------------------------------------------------------------------
# Runs


KEEP = None


def run(kind, bin_, n, idle_s, walker=False):
    with tempfile.TemporaryDirectory(prefix="clawcraft-swarm-bench-") as tmp:
        if KEEP:
            tmp = os.path.join(KEEP, f"{kind}-{n}{'-walker' if walker else ''}")
            os.makedirs(tmp, exist_ok=True)
        peer = Peer(tmp, max_players=n + 10)
        bots = control = None
        try:
            bots = (Swarm if kind == "swarm" else Processes)(bin_, tmp, peer.port, n)
            ok = bots.wait_spawned(180)
            if kind == "swarm":
                # The control: one single-bot process beside the swarm, same peer, same window —
                # what the box and the peer do to any bot's figures.
                control = Processes(bin_, tmp, peer.port, 1, prefix="Control")
                control.wait_spawned(60)
            last = max(bots.spawned.values()) if bots.spawned else time.time()
            result = {"kind": kind, "bots": n, "spawned": len(bots.spawned),
                      "startup_s": round(last - bots.t0, 2) if ok else None}
            if not ok:
                log(f"{kind} {n}: only {len(bots.spawned)} of {n} spawned")
            pids = [bots.p.pid] if kind == "swarm" else bots.pids
            result["memory_after_spawn"] = memory(pids)
            # The bots' own tick counts, read now: `status` maps code back in, which the start-up
            # page release (10 s after the last spawn) gives back before the window.
            ticks0 = bots.tick_counts("before")
            control0 = control.tick_counts("before") if control else None
            time.sleep(max(0, last + SETTLE_S - time.time()))
            walking = None
            if walker:
                walking = Walker(bots, bots.names[0])
                walking.start()
            try:
                wire = Wire(peer.port)
                wire.start()
            except PermissionError:  # AF_PACKET needs root (or CAP_NET_RAW): no socket figures
                log("no loopback capture (needs root or CAP_NET_RAW): socket figures left out")
                wire = None
            w = Window(pids, peer.p.pid)
            time.sleep(idle_s)
            result.update(w.close())
            wire_times = wire.stop(peer.names, peer.client_ports) if wire else {}
            if KEEP:
                with open(os.path.join(tmp, "wire-times.json"), "w") as f:
                    json.dump(wire_times, f)
            result["memory"] = memory(pids)
            result["own_ticks"] = own_ticks(ticks0, bots.tick_counts("after"))
            if control:
                result["control_own_ticks"] = own_ticks(control0, control.tick_counts("after"))
            if walking:
                result["walker"] = walking.stop()
            bots.stop()
            bots = None
        finally:
            for b in (bots, control):
                if b:
                    b.stop()
            peer.stop()
        times, xs = peer.inputs(result["window_ms"])
        walker_name = result["walker"]["name"] if walker else None
        for key, source in (("inputs", times), ("wire", wire_times)):
            control_names = {k for k in source if k and k.startswith("Control")}
            bots_names = set(source) - control_names - {walker_name}
            result[key] = interval_figures(source, only=bots_names)
            if key == "wire" and kind == "swarm":
                result["wire_tick_spread"] = tick_spread({k: v for k, v in source.items() if k in bots_names})
            if control_names:
                result["control_" + key] = interval_figures(source, only=control_names)
            if walker:
                result["walker"][key] = interval_figures(source, only={walker_name})
        result["peer_delay"] = peer_delay(wire_times, times)
        if walker:
            span = [max(v) - min(v) for k, v in xs.items() if k != walker_name and v]
            result["walker"]["peer_x_span"] = round(max(xs.get(walker_name, [0])) - min(xs.get(walker_name, [0])), 2)
            result["idle_bots_peer_x_span_max"] = round(max(span), 3) if span else None
        return result


class Walker(threading.Thread):
    """Walks one bot of a swarm back and forth between x 0.5 and 10.5 until stopped."""

    def __init__(self, swarm, name):
        super().__init__(daemon=True)
        self.swarm, self.name, self.done, self.walks = swarm, name, threading.Event(), 0
        self.blocks = 0.0

    def run(self):
        i = 0
        while not self.done.is_set():
            x = 10.5 if i % 2 == 0 else 0.5
            rid = f"walk{i}"
            self.swarm.send({"action": "walk", "bot": self.name, "x": x, "y": -60, "z": 0.5, "id": rid})
            v = self.swarm.wait(lambda v: v.get("type") == "walk_done" and v.get("id") == rid, 60)
            if v is None:
                log("walker: no walk_done")
                return
            if v.get("status") == "done":
                self.walks += 1
                self.blocks += float(v.get("distance") or 0)
            i += 1

    def stop(self):
        self.done.set()
        self.join(70)
        return {"name": self.name, "walks_done": self.walks, "blocks_walked": round(self.blocks, 1)}


# ----------------------------------------------------------------------------------------------
# Report


def pct(n, d):
    return f"{100 * n / d:.1f} %" if d else "–"


def intervals(i):
    """'all p50 / p99 / max | worst bot p99 / max' cells of interval figures."""
    if not i or not i.get("bots"):
        return "– | –"
    a = i["all"]
    return f"{a['p50']} / {a['p99']} / {a['max']} | {i['worst_bot_by_p99']['p99']} / {i['worst_bot_by_max']['max']}"


def control(r):
    cw, ci, ct = r.get("control_wire", {}), r.get("control_inputs", {}), r.get("control_own_ticks") or {}
    if not cw.get("bots") or not ci.get("bots"):
        return "–"
    return (f"{cw['all']['p99']} / {cw['all']['max']}; {ci['all']['p99']} / {ci['all']['max']}; "
            f"{pct(ct['over_55ms'], ct['intervals']) if ct else '–'}")


def row(label, r):
    t = r.get("own_ticks") or {}
    own = f"{pct(t['over_55ms'], t['intervals'])}" if t else "–"
    m = r["memory"]
    startup = f"{r['startup_s']} s" if r["startup_s"] is not None else f"{r['spawned']}/{r['bots']} spawned"
    return (f"| {label} | {startup} | {m['rss_mib']} ({m['anon_mib']} + {m['file_mib']}) | {m['pss_mib']} | "
            f"{r['cpu_percent_of_one_core']} % | {intervals(r.get('wire'))} | {intervals(r.get('inputs'))} | {own} | "
            f"{control(r)} | {r['peer_cpu_percent_of_one_core']} % | {r['other_load_percent_of_one_core']} % |")


def goals(report):
    big = next((r for r in report["runs"] if r["kind"] == "swarm" and r["bots"] == 100), None)
    if not big:
        return []
    out = [
        ("100 idle bots: RSS ≤ 150 MB", f"{round(big['memory']['rss_mib'] * 1.048576, 1)} MB", big["memory"]["rss_mib"] * 1.048576 <= 150),
        ("100 idle bots: CPU ≤ 20 % of one core", f"{big['cpu_percent_of_one_core']} %", big["cpu_percent_of_one_core"] <= 20),
    ]
    for key, where in (("wire", "at the peer's socket"), ("inputs", "in the peer's packet log")):
        i = big.get(key) or {}
        if not i.get("bots"):
            continue
        out.append((f"every bot's input p99 ≤ 55 ms, {where}",
                    f"worst bot {i['worst_bot_by_p99']['p99']} ms, median bot {i['median_bot_p99']} ms; "
                    f"{i['bots_over_p99_goal']} of {i['bots']} bots over", i["bots_over_p99_goal"] == 0))
    out.append(("start-up of all 100 ≤ 10 s", f"{big['startup_s']} s", big["startup_s"] is not None and big["startup_s"] <= 10))
    walk = report.get("walker")
    if walk and walk.get("walker", {}).get("wire", {}).get("bots"):
        ww, wi = walk["walker"]["wire"]["all"], walk["wire"]
        out.append(("a walking bot among 99 idle ones keeps its own figures (at the peer's socket: its p99 within 1 ms "
                    "of the idle bots' worst, or ≤ 55 ms)",
                    f"walker p50 / p99 / max {ww['p50']} / {ww['p99']} / {ww['max']} ms; the idle bots' median p99 "
                    f"{wi['median_bot_p99']} ms, worst {wi['worst_bot_by_p99']['p99']} ms",
                    ww["p99"] <= max(GOALS["input_p99_ms"], wi["worst_bot_by_p99"]["p99"] + 1)))
    return out


def markdown(report):
    L = ["<!-- Generated by tests/bench/swarm.py; do not edit by hand: rerun it. -->",
         "# Swarm figures", "",
         f"Generated {report['date']} on {report['machine']}; binary `{report['binary']}` ({report['binary_mib']} MiB); "
         f"each window {report['idle_seconds']} s, from {SETTLE_S} s after the last spawn. Reproduce: `{report['command']}`.", "",
         "- Start-up: process start → the last bot's `spawn`. RSS: VmRSS (anonymous + file-backed) in MiB, summed over "
         "the processes; PSS counts shared file pages once. CPU: % of one core, the bot process(es) only (utime + stime).",
         "- Input intervals, ms, all bots pooled p50 / p99 / max | the worst bot's p99 / the largest max of any bot: "
         "*socket* = the bots' RakNet data datagrams to the peer's port, kernel timestamps on the loopback interface "
         "(one per tick from an idle bot: its PlayerAuthInput's batch); *log* = the PlayerAuthInputs in the peer's "
         "packet log, as the Node peer's event loop reached them (its RakNet thread polls every 5 ms, then hands over "
         "to JavaScript, so this adds the peer's own scheduling).",
         "- Own ticks: the share of the bots' own tick intervals over 55 ms (`status`, from the last spawn to the "
         "window's end). Control: one single-bot process beside the swarm against the same peer in the same window: "
         "socket p99 / max; log p99 / max; own ticks over 55 ms — what the box and the peer do to any bot.",
         "- Peer CPU: the Node peer (bedrock-protocol) serving them; other load: the rest of the machine (other "
         "builds, this script), % of one core.", "",
         "| run | start-up | RSS (anon + file) | PSS | CPU | socket: all | socket: worst | log: all | log: worst "
         "| own ticks > 55 ms | control: socket; log; own | peer CPU | other load |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in report["runs"]:
        s = "" if r["bots"] == 1 else "s"
        label = f"{r['bots']} bot{s}, one process" if r["kind"] == "swarm" else f"{r['bots']} process{'es' if s else ''} of one bot"
        L.append(row(label, r))
    w = report.get("walker")
    if w:
        L.append(row(f"{w['bots']} bots, one process, one walking (the {w['bots'] - 1} idle bots)", w))
        wk = w["walker"]
        L += ["", f"Walking: {wk['name']} walked back and forth between x 0.5 and 10.5 through the window "
              f"({wk['walks_done']} walks, {wk['blocks_walked']} blocks; the peer's accepted x spanned "
              f"{wk['peer_x_span']} blocks, the idle bots' at most {w['idle_bots_peer_x_span_max']}). Its intervals: "
              f"socket {intervals(wk.get('wire')).split(' |')[0]}, log {intervals(wk.get('inputs')).split(' |')[0]} "
              f"(p50 / p99 / max, ms); the process {w['cpu_percent_of_one_core']} % of a core."]
    delays = [f"{r['bots']}{' processes' if r['kind'] == 'processes' else ''}: {r['peer_delay']['p50']} / "
              f"{r['peer_delay']['p99']} / {r['peer_delay']['max']}" for r in report["runs"] if r.get("peer_delay")]
    if delays:
        L += ["", "The peer's own delay from a datagram on its socket to its `rx` in JavaScript (p50 / p99 / max ms; the "
              "log's intervals carry it, the socket's do not) — " + "; ".join(delays) + "."]
    spreads = [f"{r['bots']}: {r['wire_tick_spread']['p50']} / {r['wire_tick_spread']['p99']} / {r['wire_tick_spread']['max']}"
               for r in report["runs"] if r.get("wire_tick_spread")]
    if spreads:
        L += ["", "Per tick, a swarm's datagrams left within (first to last, socket, p50 / p99 / max ms) — " +
              "; ".join(spreads) + "."]
    L += ["", "| goal (issue 30) | measured | met |", "|---|---|---|"]
    for g, m, ok in goals(report):
        L.append(f"| {g} | {m} | {'yes' if ok else '**no**'} |")
    L += ["", "Load average (1/5/15 min) at the start and end of each window: " +
          "; ".join(f"{r['kind']} {r['bots']}{' walking' if r is w else ''}: {r['loadavg'][0]} → {r['loadavg'][1]}"
                    for r in report["runs"] + ([w] if w else [])) + "."]
    if report.get("notes"):
        L += ["", report["notes"]]
    return "\n".join(L) + "\n"


def args_without_keep(args):
    """The command line without `--keep DIR` (where the logs went is not part of the figures)."""
    out, skip = [], False
    for x in args:
        if skip:
            skip = False
        elif x == "--keep":
            skip = True
        elif not x.startswith("--keep="):
            out.append(x)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,10,50,100")
    ap.add_argument("--idle-seconds", type=int, default=40)
    ap.add_argument("--processes", type=int, default=100, help="separate one-bot processes (0: skip)")
    ap.add_argument("--no-walker", action="store_true")
    ap.add_argument("--bin", default=figures.BIN)
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "bench", "swarm-report"))
    ap.add_argument("--keep", help="keep the peer's packet logs and the bots' output under this directory")
    ap.add_argument("--render", metavar="JSON", help="only write the markdown again from a report's JSON (no runs)")
    ap.add_argument("--notes", default="", help="a line added to the report (e.g. what else ran on the box)")
    a = ap.parse_args()
    if a.render:
        with open(a.render) as f:
            report = json.load(f)
        if a.notes:
            report["notes"] = a.notes
            with open(a.render, "w") as f:
                json.dump(report, f, indent=1)
                f.write("\n")
        with open(a.out + ".md", "w") as f:
            f.write(markdown(report))
        return
    bin_ = os.path.abspath(a.bin)
    global KEEP
    KEEP = a.keep and os.path.abspath(a.keep)
    subprocess.run(["bash", os.path.join(PEER, "install.sh")], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sizes = [int(s) for s in a.sizes.split(",") if s]
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "machine": f"{os.cpu_count()} cores, {os.uname().release}",
        "binary": os.path.relpath(bin_, ROOT) if bin_.startswith(ROOT) else bin_,
        "binary_mib": round(os.path.getsize(bin_) / 2**20, 1),
        "idle_seconds": a.idle_seconds,
        "command": "python3 tests/bench/swarm.py" + "".join(f" {x}" for x in args_without_keep(sys.argv[1:])),
        "notes": a.notes,
        "runs": [],
    }
    for n in sizes:
        log(f"swarm of {n}")
        report["runs"].append(run("swarm", bin_, n, a.idle_seconds))
        log(json.dumps(report["runs"][-1]))
    if a.processes:
        log(f"{a.processes} processes")
        report["runs"].append(run("processes", bin_, a.processes, a.idle_seconds))
        log(json.dumps(report["runs"][-1]))
    if not a.no_walker:
        n = max(sizes)
        log(f"swarm of {n}, one walking")
        report["walker"] = run("swarm", bin_, n, a.idle_seconds, walker=True)
        log(json.dumps(report["walker"]))
    with open(a.out + ".json", "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    with open(a.out + ".md", "w") as f:
        f.write(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    sys.exit(main())
