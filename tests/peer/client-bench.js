#!/usr/bin/env node
// Connect bedrock-protocol's own client to the test peer N times and time connect -> spawn.
//
//   node client-bench.js --port N [--runs 5] [--host 127.0.0.1] [--timeout-ms 20000] [--skip-ping] [--stay-ms 0] [--verbose] [--in-process]
//
// Prints one JSON line: {"connect_to_spawn_ms":[...],"median":..,"runs":N,"failures":[...]}
// Time is measured from createClient() to the client's 'spawn' event (emitted right after it received
// play_status player_spawn and sent set_local_player_as_initialized).
// Extra events (kick, error, close) are printed to stderr as JSON lines; with --verbose also every packet name.
'use strict'

function parseArgs (argv) {
  const o = { port: null, runs: 5, host: '127.0.0.1', timeoutMs: 20000, skipPing: false, stayMs: 0, verbose: false, version: require('./shapes.js').defaultVersion(), username: 'BpBench' }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = () => argv[++i]
    switch (a) {
      case '--port': o.port = parseInt(next(), 10); break
      case '--runs': o.runs = parseInt(next(), 10); break
      case '--host': o.host = next(); break
      case '--timeout-ms': o.timeoutMs = parseInt(next(), 10); break
      case '--skip-ping': o.skipPing = true; break
      case '--stay-ms': o.stayMs = parseInt(next(), 10); break
      case '--version': o.version = next(); break
      case '--username': o.username = next(); break
      case '--verbose': o.verbose = true; break
      case '--one-run': o.oneRun = true; break
      case '--in-process': o.inProcess = true; break
      default:
        process.stderr.write(`client-bench.js: unknown argument ${a}\n`)
        process.exit(2)
    }
  }
  if (!Number.isInteger(o.port)) {
    process.stderr.write('usage: node client-bench.js --port N [--runs 5] [--skip-ping] [--stay-ms MS] [--verbose]\n')
    process.exit(2)
  }
  return o
}

const note = (obj) => process.stderr.write(JSON.stringify(obj, (k, v) => typeof v === 'bigint' ? v.toString() : v) + '\n')

function runOnce (bedrock, o, run) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint()
    let done = false
    let client
    const finish = (result) => {
      if (done) return
      done = true
      clearTimeout(timer)
      setTimeout(() => {
        try { client.close() } catch (e) { }
        // give raknet a moment to send the disconnection notification before the next run
        setTimeout(() => resolve(result), 300)
      }, result.ok ? o.stayMs : 0)
    }
    const timer = setTimeout(() => finish({ ok: false, error: 'timeout' }), o.timeoutMs)
    client = bedrock.createClient({
      host: o.host,
      port: o.port,
      version: o.version,
      offline: true,
      username: o.username,
      raknetBackend: 'raknet-native',
      skipPing: o.skipPing,
      connectTimeout: o.timeoutMs
    })
    if (o.verbose) client.on('packet', (des) => note({ run, recv: des.data.name }))
    client.on('spawn', () => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6
      note({ run, event: 'spawn', ms })
      finish({ ok: true, ms })
    })
    client.on('kick', (p) => { note({ run, event: 'kick', packet: p }); finish({ ok: false, error: 'kick: ' + p.message }) })
    client.on('error', (e) => { note({ run, event: 'error', error: String(e?.message || e) }); finish({ ok: false, error: String(e?.message || e) }) })
    client.on('close', (r) => { note({ run, event: 'close', reason: r }); finish({ ok: false, error: 'closed before spawn' }) })
  })
}

// Each run happens in a fresh child process by default (--in-process to disable): raknet-native's client has been
// seen to abort V8 ("Check failed: kInvalidTaskId != id") after several clients in one process. The timing is still
// taken inside the child, from createClient() to 'spawn', so process start-up is not included.
function runInChild (o, run) {
  const { spawn } = require('child_process')
  const args = [__filename, '--one-run', '--port', String(o.port), '--host', o.host, '--timeout-ms', String(o.timeoutMs),
    '--stay-ms', String(o.stayMs), '--version', o.version, '--username', o.username]
  if (o.skipPing) args.push('--skip-ping')
  if (o.verbose) args.push('--verbose')
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', d => { out += d })
    child.on('exit', (code, sig) => {
      const line = out.split('\n').find(l => l.startsWith('{'))
      if (!line) return resolve({ ok: false, error: `run ${run}: child exited ${code ?? sig} without a result` })
      resolve(JSON.parse(line))
    })
  })
}

async function main () {
  // bedrock-protocol console.logs progress ("Connecting to ..."); keep stdout for the single JSON result line.
  console.log = console.info = console.debug = (...a) => console.error(...a)
  const o = parseArgs(process.argv.slice(2))
  if (o.oneRun) {
    const bedrock = require('bedrock-protocol')
    // warm-up outside the timed window: module loading, minecraft-data JSON, one protocol compilation
    require('minecraft-data')('bedrock_' + o.version).protocol // eslint-disable-line no-unused-expressions
    require('bedrock-protocol/src/transforms/serializer').createSerializer(o.version)
    const r = await runOnce(bedrock, o, 0)
    require('fs').writeSync(1, JSON.stringify(r) + '\n')
    process.exit(r.ok ? 0 : 1)
  }
  const bedrock = o.inProcess ? require('bedrock-protocol') : null
  const times = []
  const failures = []
  for (let run = 0; run < o.runs; run++) {
    const r = o.inProcess ? await runOnce(bedrock, o, run) : await runInChild(o, run)
    if (r.ok) times.push(Math.round(r.ms * 10) / 10)
    else failures.push({ run, error: r.error })
  }
  const sorted = [...times].sort((a, b) => a - b)
  const median = sorted.length === 0 ? null
    : sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2
  require('fs').writeSync(1, JSON.stringify({ connect_to_spawn_ms: times, median, runs: o.runs, failures, skip_ping: o.skipPing }) + '\n')
  process.exit(failures.length ? 1 : 0)
}

main().catch((e) => { process.stderr.write(`client-bench.js: ${e?.stack || e}\n`); process.exit(1) })
