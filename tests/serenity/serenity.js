#!/usr/bin/env node
'use strict'
// SerenityJS (an independently written Bedrock server, npm @serenityjs/core) for clawcraft's end-to-end tests:
// 127.0.0.1 only, offline mode, movement validation on, an in-memory superflat world, every player made operator
// as it joins. See README.md for the JSON lines it prints and the queries it answers on stdin.
//
//   node tests/serenity/serenity.js --port N [--dir DIR]
//
// stdout carries only JSON lines (Serenity's own log goes to stderr). stdin: one JSON query per line, answered on
// stdout with the server's own view of its world (blocks, players, inventories) — what the tests compare the bot with.

const fs = require('fs')
const os = require('os')
const path = require('path')

function usage (err) {
  process.stderr.write(`serenity.js: ${err}\nusage: node serenity.js --port N [--dir DIR]\n`)
  process.exit(2)
}

const args = { port: null, dir: null }
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i]
  const next = () => { if (i + 1 >= process.argv.length) usage(`missing value for ${a}`); return process.argv[++i] }
  if (a === '--port') args.port = parseInt(next(), 10)
  else if (a === '--dir') args.dir = next()
  else usage(`unknown argument ${a}`)
}
if (!Number.isInteger(args.port) || args.port <= 0 || args.port > 65535) usage('--port N is required (1..65535)')

// Our JSON lines keep stdout; everything else that would print there goes to stderr.
const writeOut = process.stdout.write.bind(process.stdout)
process.stdout.write = process.stderr.write.bind(process.stderr)
for (const k of ['log', 'info', 'debug', 'warn', 'error']) console[k] = (...a) => process.stderr.write(a.map(String).join(' ') + '\n')
const replacer = (_, v) => (typeof v === 'bigint' ? v.toString() : v)
function emit (obj) { writeOut(JSON.stringify(obj, replacer) + '\n') }

// Serenity writes its resource-pack folder (and would write properties) into the working directory: a private one.
const dir = args.dir || fs.mkdtempSync(path.join(os.tmpdir(), 'clawcraft-serenity-'))
fs.mkdirSync(dir, { recursive: true })
process.chdir(dir)

let core
try {
  core = require(path.join(__dirname, 'node_modules', '@serenityjs', 'core'))
} catch (e) {
  process.stderr.write(`serenity.js: @serenityjs/core is not installed (run tests/serenity/install.sh): ${e.message}\n`)
  process.exit(3)
}
const protocol = require(path.join(__dirname, 'node_modules', '@serenityjs', 'protocol'))
const { Serenity, InternalProvider, WorldEvent } = core

const serenity = new Serenity({
  path: null,
  serenity: { permissions: null, offlineMode: true, movementValidation: true, debugLogging: false },
  raknet: { address: '127.0.0.1', port: args.port }
})

const round = (v) => Math.round(v * 1000) / 1000
const vec = (p) => ({ x: round(p.x), y: round(p.y), z: round(p.z) })

function itemsOf (player) {
  const out = []
  try {
    const { container } = player.getTrait(core.EntityInventoryTrait)
    container.storage.forEach((item, slot) => {
      if (item) out.push({ slot, item: item.type.identifier, count: item.getStackSize() })
    })
  } catch (e) {
    out.push({ error: e.message })
  }
  return out
}

function findPlayer (name) {
  for (const world of serenity.worlds.values()) {
    for (const p of world.getPlayers()) if (p.username.toLowerCase() === String(name).toLowerCase()) return p
  }
  return null
}

function answer (q) {
  const world = serenity.getWorld()
  switch (q.query) {
    case 'block': {
      const block = world.getDimension().getBlock({ x: Math.floor(q.x), y: Math.floor(q.y), z: Math.floor(q.z) })
      return { block: block.identifier, position: { x: block.position.x, y: block.position.y, z: block.position.z } }
    }
    case 'player': {
      const p = findPlayer(q.username)
      if (!p) return { error: `no player ${q.username}` }
      // Serenity keeps a player's feet position (it takes the collision height off the input's eye position).
      return { username: p.username, position: vec(p.position), op: p.isOp, gamemode: p.getGamemode(), items: itemsOf(p) }
    }
    case 'breaktime': {
      // Serenity's own break time (ticks) of a block for a player's held item: what its break schedule waits.
      const p = findPlayer(q.username)
      const block = world.getDimension().getBlock({ x: q.x, y: q.y, z: q.z })
      return { block: block.identifier, ticks: block.getBreakTime(p ? p.getHeldItem() : null) }
    }
    case 'players': {
      return { players: world.getPlayers().map(p => p.username) }
    }
    case 'setblock': {
      const { BlockPermutation } = core
      world.getDimension().setPermutation({ x: q.x, y: q.y, z: q.z }, BlockPermutation.resolve(q.block))
      return { ok: true }
    }
    default:
      return { error: `unknown query ${q.query}` }
  }
}

let buffered = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => {
  buffered += chunk
  let nl
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, nl).trim()
    buffered = buffered.slice(nl + 1)
    if (!line) continue
    let q
    try { q = JSON.parse(line) } catch (e) { emit({ event: 'answer', error: `bad JSON: ${e.message}` }); continue }
    let result
    try { result = answer(q) } catch (e) { result = { error: e.message } }
    emit({ event: 'answer', id: q.id ?? null, query: q.query, ...result })
  }
})
// The test went away: stop.
process.stdin.on('end', () => shutdown())

function shutdown () {
  try { serenity.stop() } catch (_) {}
  setTimeout(() => {
    // A working directory of our own making goes with the server.
    if (!args.dir) fs.rmSync(dir, { recursive: true, force: true })
    process.exit(0)
  }, 300).unref()
}
process.on('SIGTERM', shutdown)
process.on('SIGINT', shutdown)

serenity.on(WorldEvent.PlayerJoin, ({ player }) => {
  player.isOp = true // "the bot made operator": commands such as /time need it
  emit({ event: 'joined', username: player.username, op: player.isOp })
})
serenity.on(WorldEvent.PlayerInitialized, ({ player }) => {
  emit({ event: 'spawned', username: player.username, position: vec(player.position) })
})
serenity.on(WorldEvent.PlayerChat, ({ player, message }) => emit({ event: 'chat', username: player.username, message }))
serenity.on(WorldEvent.PlayerBreakBlock, ({ player, block }) => {
  emit({ event: 'block_broken', username: player.username, block: block.identifier, position: { x: block.position.x, y: block.position.y, z: block.position.z } })
})
serenity.on(WorldEvent.PlayerPlaceBlock, ({ block, permutationBeingPlaced }) => {
  emit({ event: 'block_placed', block: permutationBeingPlaced?.type?.identifier ?? null, position: { x: block.position.x, y: block.position.y, z: block.position.z } })
})
serenity.on(WorldEvent.PlayerLeave, ({ player }) => emit({ event: 'left', username: player.username }))

async function main () {
  serenity.registerProvider(InternalProvider)
  const world = await serenity.createWorldAtProviderTarget(InternalProvider, { identifier: 'default', gamemode: 'survival', difficulty: 'peaceful' })
  if (!world) throw new Error('no world')
  serenity.start()
  emit({ event: 'listening', port: args.port, version: protocol.MINECRAFT_VERSION ?? null, protocol: protocol.PROTOCOL_VERSION ?? null, dir })
}

main().catch((e) => {
  process.stderr.write(`serenity.js: ${e.stack || e}\n`)
  process.exit(1)
})
