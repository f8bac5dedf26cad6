#!/usr/bin/env python3
"""Server-side latency of an MCP tool call without any SDK, beside TCP in the same run.

Launches `clawcraft mcp` (environment inherited: HOST, PORT, … must point at a server), speaks raw
JSON-RPC over its stdio, and after spawn times 1000 `pos` tool calls, then 1000 `pos` requests on
a persistent TCP connection (CLAWCRAFT_PORT) of the same bot. Prints one JSON line.

    HOST=127.0.0.1 PORT=19132 CLAWCRAFT_PORT=4099 python3 tests/mcp-client/raw-bench.py target/release/clawcraft
"""
import json
import os
import socket
import subprocess
import sys
import time

CALLS = 1000


def percentiles(us):
    us.sort()
    return {"p50_us": round(us[len(us) // 2]), "p99_us": round(us[len(us) * 99 // 100])}


def main():
    bot = subprocess.Popen([sys.argv[1], "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    next_id = 0

    def rpc(method, params=None, notify=False):
        nonlocal next_id
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            next_id += 1
            msg["id"] = next_id
        bot.stdin.write((json.dumps(msg) + "\n").encode())
        bot.stdin.flush()
        while not notify:
            line = json.loads(bot.stdout.readline())
            if line.get("id") == next_id:
                return line
        return None

    rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}})
    rpc("notifications/initialized", notify=True)
    deadline = time.time() + 60
    while not rpc("tools/call", {"name": "status", "arguments": {}})["result"]["structuredContent"]["spawned"]:
        if time.time() > deadline:
            sys.exit("the bot did not spawn")
        time.sleep(0.1)
    pos = {"name": "pos", "arguments": {}}
    for _ in range(100):
        rpc("tools/call", pos)
    us = []
    for _ in range(CALLS):
        t = time.perf_counter()
        rpc("tools/call", pos)
        us.append((time.perf_counter() - t) * 1e6)
    out = {"mcp_stdio": percentiles(us)}

    conn = socket.create_connection(("127.0.0.1", int(os.environ.get("CLAWCRAFT_PORT", "4099"))))
    reader = conn.makefile("rb")
    # `session` keeps a one-shot TCP server open (elsewhere it is an unknown action): two answers.
    conn.sendall(b'{"action":"session"}\n{"action":"pos"}\n')
    reader.readline()
    reader.readline()
    us = []
    for i in range(CALLS + 100):
        t = time.perf_counter()
        conn.sendall(b'{"action":"pos"}\n')
        reader.readline()
        if i >= 100:
            us.append((time.perf_counter() - t) * 1e6)
    out["tcp"] = percentiles(us)
    print(json.dumps(out))
    bot.stdin.close()
    bot.wait(10)


if __name__ == "__main__":
    main()
