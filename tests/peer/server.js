#!/usr/bin/env node
// clawcraft end-to-end test peer: a minimal Bedrock server built on bedrock-protocol.
//
//   node server.js --port N [--log FILE] [--scenario NAME] [--world flat|mixed] [--chunks full|request] [--version V (default: data/versions.txt's)] [--motd TEXT]
//
// stdout: one JSON object per line (lifecycle events, first one is {"event":"listening","port":N}).
// stderr: human-readable diagnostics.
// --log FILE: one JSON line per packet the client sent (after decode) plus raw-level events (names starting with "__").
// See README.md for the formats and the scenario list.
'use strict'

const fs = require('fs')
const path = require('path')
const zlib = require('zlib')
const crypto = require('crypto')

// ---------------------------------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------------------------------

function parseArgs (argv) {
  const out = { port: null, log: null, scenario: 'flat', version: require('./shapes.js').defaultVersion(), motd: 'clawcraft test peer', host: '127.0.0.1', blockHashes: false, world: null, chunks: null, logRaw: false, strictDecode: false, sentLog: null, maxPlayers: 10, spawnSpread: 0 }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = () => {
      if (i + 1 >= argv.length) usage(`missing value for ${a}`)
      return argv[++i]
    }
    switch (a) {
      case '--port': out.port = parseInt(next(), 10); break
      case '--log': out.log = next(); break
      case '--scenario': out.scenario = next(); break
      case '--version': out.version = next(); break
      case '--motd': out.motd = next(); break
      case '--block-hashes': out.blockHashes = true; break
      case '--world': out.world = next(); break
      case '--chunks': out.chunks = next(); break
      case '--log-raw': out.logRaw = true; break
      case '--sent-log': out.sentLog = next(); break
      case '--strict-decode': out.strictDecode = true; break
      case '--online-auth': out.onlineAuth = next(); break
      case '--refuse-login': out.refuseLogin = next(); break
      case '--querytarget': out.querytarget = next(); break
      case '--max-players': out.maxPlayers = parseInt(next(), 10); break
      case '--spawn-spread': out.spawnSpread = Number(next()); break
      case '-h': case '--help': usage(null); break
      default: usage(`unknown argument ${a}`)
    }
  }
  if (!Number.isInteger(out.port) || out.port <= 0 || out.port > 65535) usage('--port N is required (1..65535)')
  // --scenario bds = BDS-like: mixed world + block hashes + request-mode chunks (explicit --world/--chunks still win)
  if (out.scenario === 'bds') { out.blockHashes = true; out.world = out.world || 'mixed'; out.chunks = out.chunks || 'request' }
  if (out.scenario === 'survival') out.world = out.world || 'survival' // survival.js: the survival server side
  if (out.scenario === 'crafting') out.world = out.world || 'survival' // crafting.js: survival + containers, crafting, smelting
  if (out.scenario === 'combat' || out.scenario === 'night') out.world = out.world || 'survival' // combat.js: fighting, vitals
  if (out.scenario === 'farm') out.world = out.world || 'survival' // farm.js: survival + a wheat field
  if (out.scenario === 'writing') out.world = out.world || 'survival' // writing.js: survival + signs and books
  if (out.scenario === 'ranged') out.world = out.world || 'survival' // ranged.js: survival + buckets, falls, the bow
  if (out.scenario === 'trade') out.world = out.world || 'survival' // trade.js: survival + a farmer villager
  out.world = out.world || 'flat'
  out.chunks = out.chunks || 'full'
  if (!['flat', 'mixed', 'survival'].includes(out.world)) usage(`unknown --world ${out.world} (have: flat, mixed, survival)`)
  if (!['full', 'request'].includes(out.chunks)) usage(`unknown --chunks ${out.chunks} (have: full, request)`)
  if (out.refuseLogin && !['token', 'chain'].includes(out.refuseLogin)) usage(`unknown --refuse-login ${out.refuseLogin} (have: token, chain)`)
  out.querytarget = out.querytarget || 'answer'
  if (!Number.isInteger(out.maxPlayers) || out.maxPlayers < 1) usage('--max-players N needs a positive integer')
  if (!Number.isFinite(out.spawnSpread) || out.spawnSpread < 0 || out.spawnSpread > 16) usage('--spawn-spread D needs a number of blocks 0..16')
  if (!['answer', 'unknown', 'silent'].includes(out.querytarget)) usage(`unknown --querytarget ${out.querytarget} (have: answer, unknown, silent)`)
  return out
}

function usage (err) {
  const text = `usage: node server.js --port N [--log FILE] [--scenario ${Object.keys(SCENARIOS).join('|')}] [--version V (default: data/versions.txt's)] [--motd TEXT] [--world flat|mixed] [--chunks full|request] [--block-hashes] [--log-raw] [--strict-decode] [--sent-log FILE] [--online-auth BASE_URL] [--refuse-login token|chain] [--querytarget answer|unknown|silent] [--max-players N] [--spawn-spread D]`
  if (err) {
    process.stderr.write(`server.js: ${err}\n${text}\n`)
    process.exit(2)
  }
  process.stdout.write(text + '\n')
  process.exit(0)
}

// ---------------------------------------------------------------------------------------------------------------------
// Output helpers
// ---------------------------------------------------------------------------------------------------------------------

// JSON.stringify replacer: BigInt -> decimal string, Buffer/Uint8Array -> hex string.
function replacer (key, value) {
  const raw = this[key]
  if (Buffer.isBuffer(raw)) return raw.toString('hex')
  if (raw instanceof Uint8Array) return Buffer.from(raw).toString('hex')
  if (typeof value === 'bigint') return value.toString()
  // protodef decodes 64-bit ints as [hi, lo] Array subclasses whose valueOf() is the BigInt
  if (Array.isArray(raw) && raw.length === 2 && raw.constructor !== Array && typeof raw.valueOf() === 'bigint') return raw.valueOf().toString()
  return value
}
const toJson = (obj) => JSON.stringify(obj, replacer)

// stdout carries only our JSON lines. The raknet-native prebuild prints RakNet debug text with C printf to fd 1
// (e.g. "Unknown bind__() error -1; port N." from its failing, IPv4-only-build IPv6 bind attempt), and
// bedrock-protocol may console.log. So: open a second descriptor on the same stdout (/proc/self/fd/1 works for pipes,
// files and ttys) for our events, then point fd 1 at /dev/null for everybody else. Falls back to fd 1 if that fails.
let outFd = 1
function isolateStdout () {
  console.log = console.info = console.debug = console.warn = console.error = consoleToDiag
  if (process.env.CLAWCRAFT_PEER_RELAYED === '1') return true // our parent filters our stdout
  try {
    const fd = fs.openSync('/proc/self/fd/1', 'a')
    fs.closeSync(1)
    const nul = fs.openSync('/dev/null', 'w')
    outFd = fd
    if (nul !== 1) { // should not happen: 1 is the lowest free descriptor
      fs.closeSync(nul)
      diag(`stdout isolation: /dev/null got fd ${nul}, native output may still reach stdout`)
    }
    return true
  } catch (e) {
    // e.g. ENXIO: stdout is a socket (Node's child_process 'pipe' is a socketpair); use relayThroughChild() instead
    diag(`stdout isolation via /proc/self/fd/1 not possible (${e.code || e.message}); relaying through a child process`)
    return false
  }
}

// Fallback when stdout cannot be reopened: run the real server as a child whose stdout we read line by line; JSON
// lines go to our stdout, anything else to stderr. Signals are forwarded; the child exits when our pipe to its stdin
// closes (so it cannot outlive us even if we are SIGKILLed).
function relayThroughChild () {
  const { spawn } = require('child_process')
  const readline = require('readline')
  const child = spawn(process.execPath, [__filename, ...process.argv.slice(2)], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, CLAWCRAFT_PEER_RELAYED: '1' }
  })
  let outOk = true
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('{')) return diag(`[native stdout] ${line}`)
    if (!outOk) return
    try { fs.writeSync(1, line + '\n') } catch (e) { outOk = false }
  })
  for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => child.kill(sig))
  child.on('exit', (code, sig) => process.exit(code ?? (sig ? 1 : 0)))
}

function emitEvent (obj) {
  // Synchronous write so tests reading the pipe line by line see events promptly and in order.
  if (outFd === null) return
  try {
    fs.writeSync(outFd, toJson(obj) + '\n')
  } catch (e) {
    diag(`stdout write failed (${e.code}); no further stdout events`)
    outFd = null // reader closed its end: keep serving, stop printing
  }
}

// Diagnostics go to fd 2 synchronously and never throw: if the reader of stderr/stdout went away (EPIPE) we keep
// serving silently (an earlier version looped forever on EPIPE -> uncaughtException -> diag -> EPIPE).
let stderrOk = true
function diag (...args) {
  if (!stderrOk) return
  try {
    fs.writeSync(2, `[peer ${new Date().toISOString()}] ${args.map(a => typeof a === 'string' ? a : toJson(a)).join(' ')}\n`)
  } catch (e) {
    stderrOk = false
  }
}
const consoleToDiag = (...a) => diag(require('util').format(...a))

const rxTime = () => Math.round((performance.timeOrigin + performance.now()) * 1000) / 1000

let sentFd = null
function sentLine (obj) {
  if (sentFd === null) return
  try { fs.writeSync(sentFd, toJson({ t: Date.now(), ...obj }) + '\n') } catch (e) { diag('sent-log write failed:', e.message) }
}

let logFd = null
function logLine (obj) {
  if (logFd === null) return
  try {
    fs.writeSync(logFd, toJson({ t: Date.now(), ...obj }) + '\n') // unbuffered: tests tail the file
  } catch (e) {
    diag('log write failed:', e.message)
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// UUIDs: bedrock-protocol writes a UUID string's bytes in RFC order; vanilla writes two little-endian u64 halves
// (most significant half first). Pre-swapping each 8-byte half makes the bytes on the wire match vanilla.
// ---------------------------------------------------------------------------------------------------------------------

function vanillaUuid (uuidStr) {
  const hex = uuidStr.replace(/-/g, '')
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error(`bad uuid ${uuidStr}`)
  const b = Buffer.from(hex, 'hex')
  const swapped = Buffer.concat([Buffer.from(b.subarray(0, 8)).reverse(), Buffer.from(b.subarray(8, 16)).reverse()]).toString('hex')
  return `${swapped.slice(0, 8)}-${swapped.slice(8, 12)}-${swapped.slice(12, 16)}-${swapped.slice(16, 20)}-${swapped.slice(20)}`
}
const NIL_UUID = '00000000-0000-0000-0000-000000000000'

// ---------------------------------------------------------------------------------------------------------------------
// World constants
// ---------------------------------------------------------------------------------------------------------------------

const SPAWN_FEET = { x: 0.5, y: -60, z: 0.5 }
const EYE_HEIGHT = 1.62
const SPAWN_EYE = { x: SPAWN_FEET.x, y: SPAWN_FEET.y + EYE_HEIGHT, z: SPAWN_FEET.z } // y = -58.38
const MAX_CHUNK_RADIUS = 8
const OVERWORLD_SUBCHUNKS = 24 // y -64..319

// Worlds and chunk encoding live in world.js (flat / maps/<name>.json, full and request mode).
const { World, loadMap } = require('./world.js')
// Movement checking (authoritative positions, corrections, /tp) lives in movement.js.
const movement = require('./movement.js')
// Packet shapes of every supported version (shapes.js).
const { forVersion } = require('./shapes.js')

// ---------------------------------------------------------------------------------------------------------------------
// Packet builders
// ---------------------------------------------------------------------------------------------------------------------

function startGameParams (session, version) {
  return {
    entity_id: BigInt(session.runtimeId),
    runtime_entity_id: BigInt(session.runtimeId),
    player_gamemode: 'survival',
    player_position: { ...session.spawnEye },
    rotation: { x: 0, z: 0 },
    seed: 0n,
    biome_type: 0,
    biome_name: 'plains',
    dimension: 'overworld',
    generator: 2, // flat
    world_gamemode: 'survival',
    hardcore: false,
    difficulty: 1,
    spawn_position: { x: 0, y: SPAWN_FEET.y, z: 0 },
    achievements_disabled: true,
    editor_world_type: 'not_editor',
    created_in_editor: false,
    exported_from_editor: false,
    day_cycle_stop_time: 0,
    edu_offer: 0,
    edu_features_enabled: false,
    edu_product_uuid: '',
    rain_level: 0,
    lightning_level: 0,
    has_confirmed_platform_locked_content: false,
    is_multiplayer: true,
    broadcast_to_lan: false,
    xbox_live_broadcast_mode: 0,
    platform_broadcast_mode: 0,
    enable_commands: true,
    is_texturepacks_required: false,
    gamerules: [
      { name: 'dodaylightcycle', editable: false, type: 'bool', value: false },
      { name: 'domobspawning', editable: false, type: 'bool', value: false },
      { name: 'naturalregeneration', editable: false, type: 'bool', value: true },
      { name: 'showcoordinates', editable: false, type: 'bool', value: true },
      { name: 'spawnradius', editable: false, type: 'int', value: 0 }
    ],
    experiments: [],
    experiments_previously_used: false,
    bonus_chest: false,
    map_enabled: false,
    permission_level: 'member',
    server_chunk_tick_range: 4,
    has_locked_behavior_pack: false,
    has_locked_resource_pack: false,
    is_from_locked_world_template: false,
    msa_gamertags_only: false,
    is_from_world_template: false,
    is_world_template_option_locked: false,
    only_spawn_v1_villagers: false,
    persona_disabled: false,
    custom_skins_disabled: false,
    emote_chat_muted: false,
    game_version: version,
    limited_world_width: 0,
    limited_world_length: 0,
    is_new_nether: true,
    edu_resource_uri: { button_name: '', link_uri: '' },
    experimental_gameplay_override: false,
    chat_restriction_level: 'none',
    disable_player_interactions: false,
    server_editor_connection_policy: 0,
    allow_anonymous_block_drops_in_editor_worlds: false,
    level_id: 'Y2xhd2NyYWZ0',
    world_name: 'clawcraft flat',
    premium_world_template_id: '',
    is_trial: false,
    rewind_history_size: 40,
    server_authoritative_block_breaking: true,
    current_tick: 0n,
    enchantment_seed: 0,
    block_properties: [],
    multiplayer_correlation_id: crypto.randomUUID(),
    server_authoritative_inventory: true,
    engine: version,
    property_data: { type: 'compound', name: '', value: {} },
    block_pallette_checksum: 0n,
    world_template_id: vanillaUuid(NIL_UUID),
    client_side_generation: false,
    block_network_ids_are_hashes: session.ctx.world.hashes,
    server_controlled_sound: false,
    has_server_join_info: false,
    server_identifier: '',
    scenario_identifier: '',
    world_identifier: '',
    owner_identifier: ''
  }
}

const REGISTRY_ITEMS = ['stone', 'grass_block', 'dirt', 'cobblestone', 'oak_planks', 'oak_log', 'torch', 'wooden_pickaxe',
  'stone_pickaxe', 'diamond_pickaxe', 'diamond_sword', 'shield', 'bread', 'apple']

function itemRegistryParams (mcData, extra = []) {
  const itemstates = []
  for (const name of [...REGISTRY_ITEMS, ...extra]) {
    const it = mcData.itemsByName[name]
    if (!it) continue
    itemstates.push({
      name: 'minecraft:' + it.name,
      runtime_id: it.id,
      component_based: !!it.componentBased,
      version: it.version || 'none',
      nbt: it.nbt || { type: 'compound', name: '', value: {} }
    })
  }
  return { itemstates }
}

function attribute (name, min, max, value, def = value) {
  return { min, max, current: value, default_min: min, default_max: max, default: def, name, modifiers: [] }
}

function updateAttributesParams (session) {
  return {
    runtime_entity_id: BigInt(session.runtimeId),
    attributes: [
      attribute('minecraft:health', 0, 20, 20),
      attribute('minecraft:player.hunger', 0, 20, 20),
      attribute('minecraft:player.saturation', 0, 20, 5),
      attribute('minecraft:player.exhaustion', 0, 5, 0),
      attribute('minecraft:player.level', 0, 24791, 0),
      attribute('minecraft:player.experience', 0, 1, 0),
      attribute('minecraft:movement', 0, 3.4028234663852886e38, 0.1),
      attribute('minecraft:absorption', 0, 16, 0),
      attribute('minecraft:knockback_resistance', 0, 1, 0),
      attribute('minecraft:follow_range', 0, 2048, 16),
      attribute('minecraft:attack_damage', 0, 3.4028234663852886e38, 1)
    ],
    tick: 0n
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Sessions and scenarios
// ---------------------------------------------------------------------------------------------------------------------

class Session {
  constructor (ctx, player, id) {
    this.ctx = ctx
    this.player = player
    this.id = id
    this.runtimeId = 1 // one player per world; runtime id == unique id == 1
    this.address = player.connection?.address
    this.username = null
    this.stackSent = false
    this.startGameSent = false
    this.pendingRadius = null
    this.chunksSent = false
    this.spawned = false
    this.closed = false
    this.timers = []
    this.packetCounts = {} // packet name -> number received from this client
    this.arrivals = [] // when each RakNet message not yet handled reached JavaScript (rxTime)
    this.arrival = null // ... and the one being handled now
    // --spawn-spread D: the n-th connection spawns D blocks further east than the one before (x = 0.5 + D·(n − 1))
    const dx = (peerOptions.spawnSpread || 0) * (id - 1)
    this.spawnFeet = { x: SPAWN_FEET.x + dx, y: SPAWN_FEET.y, z: SPAWN_FEET.z }
    this.spawnEye = { x: this.spawnFeet.x, y: this.spawnFeet.y + EYE_HEIGHT, z: this.spawnFeet.z }
  }

  write (name, params) {
    if (this.closed) return
    try {
      this.player.write(name, this.ctx.fit(name, params))
    } catch (e) {
      diag(`failed to write ${name}:`, e.stack || e.message)
      throw e
    }
  }

  queue (name, params) {
    if (this.closed) return
    this.player.queue(name, this.ctx.fit(name, params))
  }

  later (ms, fn) {
    const t = setTimeout(() => { if (!this.closed) fn() }, ms)
    this.timers.push(t)
  }

  clearTimers () { for (const t of this.timers) clearTimeout(t) }
}

// Default join flow. Each scenario is a function (session) => hooks; it may wrap / replace the flat hooks.
function flatScenario (session) {
  const { ctx } = session
  return {
    // after client_to_server_handshake; bedrock-protocol already sent play_status login_success
    onJoin () {
      session.write('resource_packs_info', {
        must_accept: false,
        has_addons: false,
        has_scripts: false,
        disable_vibrant_visuals: false,
        world_template: { uuid: vanillaUuid(NIL_UUID), version: '' },
        texture_packs: []
      })
    },
    onResourcePackResponse (p) {
      if (p.response_status === 'refused') {
        diag('client refused resource packs')
        return
      }
      if (!session.stackSent) {
        session.stackSent = true
        session.write('resource_pack_stack', {
          must_accept: false,
          resource_packs: [],
          game_version: '*',
          experiments: [],
          experiments_previously_used: false,
          has_editor_packs: false
        })
        return
      }
      if (p.response_status === 'completed' && !session.startGameSent) this.sendStartGame()
    },
    sendStartGame () {
      session.startGameSent = true
      session.write('start_game', startGameParams(session, ctx.version))
      session.write('item_registry', itemRegistryParams(ctx.mcData, session.registryItems))
      session.write('set_time', { time: 6000 })
      session.write('update_attributes', updateAttributesParams(session))
      if (session.pendingRadius !== null) this.sendChunks(session.pendingRadius)
    },
    onRequestChunkRadius (p) {
      if (!session.startGameSent) { // answer once StartGame is out
        session.pendingRadius = p.chunk_radius
        return
      }
      this.sendChunks(p.chunk_radius)
    },
    sendChunks (requested) {
      const radius = Math.max(1, Math.min(requested, MAX_CHUNK_RADIUS))
      session.write('chunk_radius_update', { chunk_radius: radius })
      if (session.chunksSent) return
      session.chunksSent = true
      session.write('network_chunk_publisher_update', {
        coordinates: { x: Math.floor(session.spawnFeet.x), y: session.spawnFeet.y, z: Math.floor(session.spawnFeet.z) },
        radius: radius * 16,
        saved_chunks: []
      })
      const cx0 = Math.floor(session.spawnFeet.x) >> 4
      const cz0 = Math.floor(session.spawnFeet.z) >> 4
      const coords = []
      for (let dx = -radius; dx <= radius; dx++) {
        for (let dz = -radius; dz <= radius; dz++) {
          if (dx * dx + dz * dz <= radius * radius) coords.push([cx0 + dx, cz0 + dz])
        }
      }
      coords.sort((a, b) => (Math.abs(a[0] - cx0) + Math.abs(a[1] - cz0)) - (Math.abs(b[0] - cx0) + Math.abs(b[1] - cz0)))
      const request = ctx.chunkMode === 'request'
      for (const [x, z] of coords) {
        if (request) {
          // BDS-like request mode: no sub-chunks in the payload (biomes + border only), sub_chunk_count 0 and the
          // limit set = number of sub-chunks from the bottom worth requesting (highest non-air index + 1)
          session.write('level_chunk', {
            x,
            z,
            dimension: 0,
            sub_chunk_count: 0,
            highest_subchunk_count: ctx.world.highestFilled(x, z) + 1,
            cache_enabled: false,
            blobs: [],
            payload: ctx.world.requestPayload()
          })
        } else {
          session.write('level_chunk', {
            x,
            z,
            dimension: 0,
            sub_chunk_count: OVERWORLD_SUBCHUNKS,
            highest_subchunk_count: undefined, // absent => full (non-request) mode
            cache_enabled: false,
            blobs: [],
            payload: ctx.world.fullPayload(x, z)
          })
        }
      }
      session.chunkCoords = coords
      emitEvent({ event: 'chunks_sent', count: coords.length, radius, mode: ctx.chunkMode, world: ctx.world.name })
      session.write('play_status', { status: 'player_spawn' })
      emitEvent({ event: 'player_spawn_sent', username: session.username })
    },
    // client sent set_local_player_as_initialized
    onSpawn () {
      const timestamp = BigInt(Date.now()) * 1000n
      session.networkStackLatencyTimestamp = timestamp
      session.write('network_stack_latency', { timestamp, needs_response: 1 })
      emitEvent({ event: 'network_stack_latency_sent', timestamp: timestamp.toString() })
    }
  }
}

function kickScenario (session) {
  const hooks = flatScenario(session)
  const onSpawn = hooks.onSpawn.bind(hooks)
  hooks.onSpawn = () => {
    onSpawn()
    session.later(1000, () => {
      const message = 'Kicked by test peer'
      session.write('disconnect', { reason: 'kicked', hide_disconnect_reason: false, message, filtered_message: '' })
      emitEvent({ event: 'kicked', username: session.username, message })
      logLine({ name: '__server_kick', message })
      setTimeout(() => session.ctx.closeSession(session, 'kick'), 200) // let the disconnect packet go out first
    })
  }
  return hooks
}

function badChecksumScenario (session) {
  // Replace the connection's encryptor with a copy of bedrock-protocol's (src/transforms/encryption.js createEncryptor)
  // that corrupts the 8-byte SHA-256 checksum of the first encrypted batch the server sends after the handshake
  // (the batch carrying play_status login_success). The client must reject the stream.
  const player = session.player
  const origEnable = player.enableEncryption.bind(player)
  player.enableEncryption = (material) => {
    origEnable(material)
    let corrupted = false
    player.encrypt = (chunk) => {
      const compressed = zlib.deflateRawSync(chunk, { level: player.compressionLevel })
      const plain = player.features.compressorInHeader ? Buffer.concat([Buffer.from([0]), compressed]) : compressed
      const counter = Buffer.alloc(8)
      counter.writeBigInt64LE(player.sendCounter, 0)
      const checksum = crypto.createHash('sha256').update(counter).update(plain).update(player.secretKeyBytes).digest().subarray(0, 8)
      const sent = Buffer.from(checksum)
      if (!corrupted) {
        corrupted = true
        for (let i = 0; i < 8; i++) sent[i] ^= 0xa5
        emitEvent({ event: 'checksum_corrupted', counter: player.sendCounter.toString(), good: checksum.toString('hex'), sent: sent.toString('hex') })
        logLine({ name: '__checksum_corrupted', counter: player.sendCounter, good: checksum, sent })
      }
      player.sendCounter++
      player.cipher.write(Buffer.concat([plain, sent]))
    }
  }
  return flatScenario(session)
}

function teleportScenario (session) {
  const hooks = flatScenario(session)
  const onSpawn = hooks.onSpawn.bind(hooks)
  hooks.onSpawn = () => {
    onSpawn()
    session.later(500, () => {
      const position = { x: 10.5, y: -58.38, z: 3.5 }
      session.write('move_player', {
        runtime_id: session.runtimeId,
        position,
        pitch: 0,
        yaw: 0,
        head_yaw: 0,
        mode: 'teleport',
        on_ground: false,
        ridden_runtime_id: 0,
        teleport: { cause: 'unknown', source_entity_type: 0 },
        tick: 0n
      })
      movement.onTeleport(session, position)
      emitEvent({ event: 'teleport_sent', runtime_id: session.runtimeId, position })
    })
  }
  return hooks
}

// ---------------------------------------------------------------------------------------------------------------------
// World reactions shared by every scenario: SubChunkRequest (request mode), the map's timeline, CommandRequest
// ---------------------------------------------------------------------------------------------------------------------

// SubChunkRequest: one SubChunk packet answering every requested offset from the origin.
function handleSubChunkRequest (session, p) {
  const { world } = session.ctx
  const origin = p.origin || { x: 0, y: 0, z: 0 }
  const entries = []
  const counts = {}
  for (const q of (p.requests || [])) {
    const r = { x: q.x ?? q.dx, y: q.y ?? q.dy, z: q.z ?? q.dz } // 1.26.20 names the offsets dx/dy/dz
    const e = world.subChunkEntry(r.x, r.y, r.z, origin.x + r.x, origin.y + r.y, origin.z + r.z, p.dimension)
    counts[e.result] = (counts[e.result] || 0) + 1
    entries.push(e)
  }
  session.write('subchunk', { cache_enabled: false, dimension: p.dimension, origin: { x: origin.x, y: origin.y, z: origin.z }, entries })
  emitEvent({ event: 'subchunks_sent', origin, count: entries.length, results: counts })
}

function blockUpdateEntry (world, b) {
  return { position: { x: b.x, y: b.y, z: b.z }, runtime_id: world.wireId(world.stateId(b.name, b.states || {})), flags: 2, entity_unique_id: 0n, transition_type: 'entity' }
}

// The map's "timeline" (maps/<name>.json), relative to set_local_player_as_initialized.
function runWorldTimeline (session) {
  const { world } = session.ctx
  const timeline = world.map?.timeline || []
  for (const item of timeline) {
    if (item.packet === 'set_time') {
      let n = 0
      const tick = () => {
        n++
        const time = 6000 + (item.time_step || 20) * n
        session.write('set_time', { time })
        emitEvent({ event: 'time_set', time, n })
        session.later(item.repeat_ms, tick)
      }
      session.later(item.ms, tick)
    } else if (item.packet === 'update_block') {
      session.later(item.ms, () => {
        for (const u of item.updates) {
          session.write('update_block', { position: { x: u.x, y: u.y, z: u.z }, block_runtime_id: world.wireId(world.stateId(u.name, u.states)), flags: { network: true }, layer: u.layer || 0 })
        }
        emitEvent({ event: 'block_updated', step: item.step, packet: item.packet, updates: item.updates })
      })
    } else if (item.packet === 'update_subchunk_blocks') {
      session.later(item.ms, () => {
        session.write('update_subchunk_blocks', {
          x: item.position.x,
          y: item.position.y,
          z: item.position.z,
          blocks: item.blocks.map(b => blockUpdateEntry(world, b)),
          extra: item.extra.map(b => blockUpdateEntry(world, b))
        })
        emitEvent({ event: 'block_updated', step: item.step, packet: item.packet, position: item.position, blocks: item.blocks, extra: item.extra })
      })
    } else if (item.packet === 'level_event') {
      session.later(item.ms, () => {
        session.write('level_event', { event: item.level_event, position: item.position, data: item.data })
        emitEvent({ event: 'level_event', step: item.step, level_event: item.level_event, id: item.id, data: item.data })
      })
    }
  }
}

// A client's chat line: relayed to every player, the sender included, as a chat Text from the sender's name — the
// echo a vanilla client waits for before it shows its own line (bedrock-protocol's README echo example skips lines
// whose source_name is its own for that reason). This peer has one real player, so the echo is all it sends.
function handleClientText (session, p) {
  if (p.type !== 'chat') return
  const message = String(p.message || '')
  session.write('text', { needs_translation: false, category: 'authored', type: 'chat', source_name: session.username || '', message, xuid: '', platform_chat_id: '', has_filtered_message: false })
  emitEvent({ event: 'chat_echoed', from: session.username, message })
}

// Names a command may target: the bot and the scripted players currently in the player list.
function onlineNames (session) {
  return [session.username || 'unknown', ...(session.listed ? [...session.listed] : [])]
}

// "/tell <name|"quoted name"> <message>" (also /msg, /w). A listed target: the sender gets the "You whisper to" line
// (json_whisper rawtext, commands.message.display.outgoing [target, message]) and success_count 1 without output lines;
// anyone else: success_count 0 with commands.generic.noTargetMatch. Modelled on how the bot reads a vanilla server's
// answer (either packet confirms), not on a BDS capture.
function tellCommand (session, command) {
  const m = command.replace(/^\//, '').match(/^\S+\s+(?:"([^"]+)"|(\S+))\s+([\s\S]+)$/)
  if (!m) return { output: [{ message_id: 'commands.generic.syntax', success: false, parameters: ['', command, ''] }], successCount: 0 }
  const wanted = (m[1] || m[2]).toLowerCase()
  const message = m[3].trim()
  const to = onlineNames(session).find(n => n.toLowerCase() === wanted)
  emitEvent({ event: 'whisper', to: to || (m[1] || m[2]), message, delivered: !!to })
  if (!to) return { output: [{ message_id: 'commands.generic.noTargetMatch', success: false, parameters: [] }], successCount: 0 }
  const rawtext = { rawtext: [{ translate: 'commands.message.display.outgoing', with: [to, message] }] }
  session.write('text', { needs_translation: false, category: 'message_only', type: 'json_whisper', message: JSON.stringify(rawtext), xuid: '', platform_chat_id: '', has_filtered_message: false })
  return { output: [], successCount: 1 }
}

// CommandRequest -> CommandOutput echoing the origin. A scenario's `onCommand(command, word)` answers first when it
// returns output entries (survival.js: /time set, /summon, /kill). "/list" succeeds (count = the bot + scripted players currently in
// the player list, max 20); "/tell" as above; anything else fails with commands.generic.unknown.
function handleCommandRequest (session, p) {
  const command = String(p.command || '').trim()
  const word = command.replace(/^\//, '').split(/\s+/)[0].toLowerCase()
  const origin = p.origin || { type: 'player', uuid: NIL_UUID, request_id: '', player_entity_id: 0n }
  let output
  let successCount
  if (word === 'querytarget' && peerOptions.querytarget === 'silent') {
    // A server that answers no CommandOutput for it (as SerenityJS 0.8.21): nothing at all.
    emitEvent({ event: 'command_ignored', command, request_id: origin.request_id })
    return
  }
  const tp = movement.onCommand(session, command)
  const query = word === 'querytarget' && peerOptions.querytarget === 'answer' ? movement.queryTarget(session, command) : null
  // a scenario's own commands (survival: /time set, /summon, /kill) answer first
  const own = session.hooks?.onCommand ? session.hooks.onCommand(command, word) : null
  if (own) {
    output = own
    successCount = own.some(o => o.success) ? 1 : 0
  } else if (query) {
    output = query
    successCount = query[0].success ? 1 : 0
  } else if (tp) {
    output = tp
    successCount = tp[0].success ? 1 : 0
  } else if (word === 'tell' || word === 'msg' || word === 'w') {
    ({ output, successCount } = tellCommand(session, command))
  } else if (word === 'list') {
    const names = onlineNames(session)
    output = [
      { message_id: 'commands.players.list', success: true, parameters: [String(names.length), '20'] },
      { message_id: names.join(', '), success: true, parameters: [] }
    ]
    successCount = 1
  } else {
    output = [{ message_id: 'commands.generic.unknown', success: false, parameters: [word] }]
    successCount = 0
  }
  session.write('command_output', { origin: { type: origin.type, uuid: origin.uuid, request_id: origin.request_id, player_entity_id: origin.player_entity_id }, output_type: 'alloutput', success_count: successCount, output, has_data: false })
  emitEvent({ event: 'command_output', command, request_id: origin.request_id, success_count: successCount, output })
}

// ---------------------------------------------------------------------------------------------------------------------
// Living scenario: scripted players, entities, chat, vitals, death/respawn from scripts/living.json
// ---------------------------------------------------------------------------------------------------------------------

const AIR_ITEM = { network_id: 0, count: 0, metadata: 0, has_stack_id: false, block_runtime_id: 0, extra: { has_nbt: 'false', can_place_on: [], can_destroy: [] } }
const EMPTY_PROPS = { ints: [], floats: [] }

function skinImage (w, h) { return { width: w, height: h, data: Buffer.alloc(w * h * 4) } }
function minimalSkin (name) {
  return {
    skin_id: `Standard_Custom_${name}`,
    play_fab_id: '',
    skin_resource_pack: JSON.stringify({ geometry: { default: 'geometry.humanoid.custom' } }),
    skin_data: skinImage(64, 64),
    animations: [],
    cape_data: skinImage(0, 0),
    geometry_data: '',
    geometry_data_version: '1.14.0',
    animation_data: '',
    cape_id: '',
    full_skin_id: `Standard_Custom_${name}_full`,
    arm_size: 'wide',
    skin_color: 0,
    personal_pieces: [],
    piece_tint_colors: [],
    premium: false,
    persona: false,
    cape_on_classic: false,
    primary_user: true,
    overriding_player_appearance: false,
    trusted: 'false',
    profile_hash: ''
  }
}

let livingScript = null
function loadLivingScript () {
  if (!livingScript) livingScript = JSON.parse(fs.readFileSync(path.join(__dirname, 'scripts', 'living.json'), 'utf8'))
  return livingScript
}

function livingScenario (session) {
  const hooks = flatScenario(session)
  const onSpawn = hooks.onSpawn.bind(hooks)
  const script = loadLivingScript()
  const { mcData } = session.ctx
  session.listed = new Set()
  let spawnAt = 0
  let died = false
  let respawnAnswered = false
  const bot = () => session.username || 'ClawBot'
  const sub = (v) => typeof v === 'string' ? v.split('{bot}').join(bot()) : Array.isArray(v) ? v.map(sub) : v
  const rid = () => BigInt(session.runtimeId)
  const stepEvent = (step, extra = {}) => emitEvent({ event: 'script', step: step.step, action: step.action, t_ms: Date.now() - spawnAt, ...extra })
  const player = (name) => script.players[name]
  const entity = (name) => script.entities[name]

  const attrs = (values) => {
    const known = { 'minecraft:health': [0, 20, 20], 'minecraft:player.hunger': [0, 20, 20] }
    return Object.entries(values).map(([name, v]) => { const [min, max, def] = known[name] || [0, 20, 20]; return attribute(name, min, max, v, def) })
  }
  const sendAttributes = (values) => session.write('update_attributes', { runtime_entity_id: rid(), attributes: attrs(values), tick: 0n })
  const entityEvent = (eventId, runtimeId = rid()) => session.write('entity_event', { runtime_entity_id: runtimeId, event_id: eventId, data: 0 })
  const movePlayer = (p, pos, yaw, mode = 'normal') => session.write('move_player', {
    runtime_id: p.runtime_id, position: pos, pitch: 0, yaw, head_yaw: yaw, mode, on_ground: true, ridden_runtime_id: 0, teleport: undefined, tick: 0n
  })
  const playerListAdd = (names) => {
    session.write('player_list', {
      records: names.map(n => {
          const p = player(n)
          session.listed.add(n)
        return { type: 'add', legacy_type: 0, uuid: vanillaUuid(p.uuid), entity_unique_id: BigInt(p.unique_id), username: n, xbox_user_id: p.xuid, platform_chat_id: p.platform_chat_id, build_platform: p.build_platform, skin_data: minimalSkin(n), is_teacher: false, is_host: false, is_subclient: false, player_color: -1 }
      })
    })
  }
  const playerListRemove = (names) => {
    for (const n of names) session.listed.delete(n)
    session.write('player_list', { records: names.map(n => ({ type: 'remove', legacy_type: 1, uuid: vanillaUuid(player(n).uuid) })) })
  }
  const TEXT_CATEGORY = { chat: 'authored', whisper: 'authored', announcement: 'authored', raw: 'message_only', tip: 'message_only', system: 'message_only', json_whisper: 'message_only', json: 'message_only', json_announcement: 'message_only', translation: 'parameters', popup: 'parameters', jukebox_popup: 'parameters' }

  const actions = {
    player_list_add: (st) => playerListAdd(st.players),
    player_list_remove: (st) => playerListRemove(st.players),
    add_player: (st) => {
      const p = player(st.player)
      session.write('add_player', {
        uuid: vanillaUuid(p.uuid),
        username: st.player,
        runtime_id: BigInt(p.runtime_id),
        platform_chat_id: p.platform_chat_id,
        position: st.position,
        velocity: { x: 0, y: 0, z: 0 },
        pitch: 0,
        yaw: st.yaw || 0,
        head_yaw: st.yaw || 0,
        held_item: AIR_ITEM,
        gamemode: 'survival',
        metadata: [],
        properties: EMPTY_PROPS,
        unique_id: BigInt(p.unique_id),
        permission_level: 'member',
        command_permission: 'normal',
        abilities: [{ type: 'base', allowed: 0x3ffff, enabled: 0, fly_speed: 0.05, vertical_fly_speed: 1, walk_speed: 0.1 }],
        links: [],
        device_id: p.device_id,
        device_os: p.device_os
      })
    },
    add_entity: (st) => {
      const e = entity(st.entity)
      session.write('add_entity', {
        unique_id: BigInt(e.unique_id),
        runtime_id: BigInt(e.runtime_id),
        entity_type: e.type,
        position: e.position,
        velocity: { x: 0, y: 0, z: 0 },
        pitch: 0,
        yaw: e.yaw || 0,
        head_yaw: e.yaw || 0,
        body_yaw: e.yaw || 0,
        attributes: [],
        metadata: e.name ? [{ key: 'nametag', type: 'string', legacy_type: 4, value: e.name }] : [],
        properties: EMPTY_PROPS,
        links: []
      })
    },
    add_item_entity: (st) => {
      const e = entity(st.entity)
      const it = mcData.itemsByName[e.item]
      session.write('add_item_entity', {
        entity_id_self: BigInt(e.unique_id),
        runtime_entity_id: BigInt(e.runtime_id),
        item: { network_id: it.id, count: e.count, metadata: 0, has_stack_id: false, block_runtime_id: 0, extra: { has_nbt: 'false', can_place_on: [], can_destroy: [] } },
        position: e.position,
        velocity: { x: 0, y: 0, z: 0 },
        metadata: [],
        is_from_fishing: false
      })
      return { item_network_id: it.id }
    },
    take_item_entity: (st) => {
      const e = entity(st.entity)
      session.write('take_item_entity', { runtime_entity_id: BigInt(e.runtime_id), target: player(st.taker).runtime_id })
      session.write('remove_entity', { entity_id_self: BigInt(e.unique_id) })
    },
    player_leave: (st) => {
      playerListRemove([st.player])
      session.write('remove_entity', { entity_id_self: BigInt(player(st.player).unique_id) })
    },
    text: (st) => {
      const message = sub(st.message)
      const p = { needs_translation: !!st.needs_translation, category: TEXT_CATEGORY[st.type], type: st.type, message, xuid: '', platform_chat_id: '', has_filtered_message: false }
      if (st.source_name !== undefined) p.source_name = sub(st.source_name)
      if (TEXT_CATEGORY[st.type] === 'parameters') p.parameters = sub(st.parameters || [])
      session.write('text', p)
      return { message, source_name: p.source_name }
    },
    walk_player: (st) => {
      const p = player(st.player)
      const n = Math.round(st.duration_ms / st.interval_ms)
      for (let i = 1; i <= n; i++) {
        session.later(st.interval_ms * i, () => {
          const f = i / n
          const pos = { x: st.from.x + (st.to.x - st.from.x) * f, y: st.from.y + (st.to.y - st.from.y) * f, z: st.from.z + (st.to.z - st.from.z) * f }
          movePlayer(p, pos, st.yaw || 0)
          if (i === n) stepEvent(st, { phase: 'done', position: pos })
        })
      }
    },
    move_entity_delta: (st) => {
      const e = entity(st.entity)
      const f = st.fields
      session.write('move_entity_delta', { runtime_entity_id: BigInt(e.runtime_id), x: f.x, y: f.y, z: f.z, rot_x: f.pitch, rot_y: f.yaw, rot_z: f.head_yaw, on_ground: st.on_ground !== false, force_move: false, force_move_local_entity: false, force_completion: false })
    },
    walk_entity: (st) => {
      const e = entity(st.entity)
      const n = Math.round(st.duration_ms / st.interval_ms)
      for (let i = 1; i <= n; i++) {
        session.later(st.interval_ms * i, () => {
          const f = i / n
          const pos = { x: st.from.x + (st.to.x - st.from.x) * f, y: st.from.y + (st.to.y - st.from.y) * f, z: st.from.z + (st.to.z - st.from.z) * f }
          const rot = i === 1 ? (st.first_fields || {}) : {}
          session.write('move_entity_delta', {
            runtime_entity_id: BigInt(e.runtime_id),
            x: st.axes.includes('x') ? pos.x : undefined,
            y: st.axes.includes('y') ? pos.y : undefined,
            z: st.axes.includes('z') ? pos.z : undefined,
            rot_x: rot.pitch,
            rot_y: rot.yaw,
            rot_z: rot.head_yaw,
            on_ground: true,
            force_move: false,
            force_move_local_entity: false,
            force_completion: false
          })
          if (i === n) stepEvent(st, { phase: 'done', position: pos })
        })
      }
    },
    move_entity: (st) => {
      const e = entity(st.entity)
      session.write('move_entity', { runtime_entity_id: BigInt(e.runtime_id), flags: st.flags, position: st.position, rotation: st.rotation })
    },
    emote: (st) => {
      const p = player(st.player)
      session.write('emote', { entity_id: BigInt(p.runtime_id), emote_id: st.emote_id, emote_length_ticks: st.length_ticks, xuid: p.xuid, platform_id: p.platform_chat_id, flags: 'server_side' })
    },
    vitals: (st) => {
      if (st.attributes) sendAttributes(st.attributes)
      if (st.entity_event) entityEvent(st.entity_event)
    },
    mob_effect: (st) => {
      session.write('mob_effect', { runtime_entity_id: rid(), event_id: st.event_id, effect_id: st.effect_id, amplifier: st.amplifier, particles: st.particles, duration: st.duration, tick: 0n, ambient: false })
    },
    death: (st) => {
      died = true
      sendAttributes(st.attributes)
      entityEvent(st.entity_event)
      session.write('death_info', { cause: st.cause, messages: sub(st.messages) })
      return { messages: sub(st.messages) }
    },
    respawn: (st) => {
      session.write('respawn', { position: st.position, state: st.state, runtime_entity_id: rid() })
    },
    done: () => {}
  }

  hooks.onSpawn = () => {
    onSpawn()
    spawnAt = Date.now()
    for (const st of script.steps) {
      session.later(st.ms, () => {
        let extra = {}
        try {
          extra = actions[st.action](st) || {}
        } catch (e) {
          diag(`living step ${st.step} failed:`, e.stack || e.message)
          extra = { error: e.message }
        }
        stepEvent(st, extra)
      })
    }
  }

  // the bot's answer to the death: Respawn state 2 (client_ready) and/or PlayerAction respawn
  hooks.onPacket = (name, params) => {
    let trigger = null
    if (name === 'respawn' && params?.state === 2) trigger = 'respawn'
    if (name === 'player_action' && params?.action === 'respawn') trigger = 'player_action'
    if (!trigger) return
    if (!died || respawnAnswered) {
      emitEvent({ event: 'script', step: 'respawn_client_message', trigger, answered: false, t_ms: Date.now() - spawnAt })
      return
    }
    respawnAnswered = true
    sendAttributes({ 'minecraft:health': 20, 'minecraft:player.hunger': 20 })
    session.write('move_player', { runtime_id: session.runtimeId, position: { ...SPAWN_EYE }, pitch: 0, yaw: 0, head_yaw: 0, mode: 'reset', on_ground: true, ridden_runtime_id: 0, teleport: undefined, tick: 0n })
    movement.onTeleport(session, SPAWN_EYE)
    emitEvent({ event: 'script', step: 'respawn_client_ready', action: 'respawn_reply', trigger, t_ms: Date.now() - spawnAt, position: SPAWN_EYE })
  }
  return hooks
}

const SCENARIOS = {
  flat: flatScenario,
  kick: kickScenario,
  'bad-checksum': badChecksumScenario,
  teleport: teleportScenario,
  living: livingScenario,
  bds: flatScenario, // BDS-like: --world mixed --chunks request --block-hashes (set in parseArgs)
  // survival.js: inventory, breaking, placing, eating, doors, a bed, a zombie (--world survival by default)
  survival: (session) => require('./survival.js').scenario(session, { flatScenario, emitEvent, diag, AIR_ITEM, attribute }),
  // crafting.js: the survival scenario with a chest, a furnace, a blast furnace, recipes as CraftingData and logs to start
  crafting: (session) => require('./crafting.js').scenario(session, { flatScenario, emitEvent, diag, AIR_ITEM, attribute }),
  // combat.js: survival with animated mobs (chase, melee), Bedrock's hit rules, armour, regeneration; /summon, /drop
  combat: (session) => require('./combat.js').scenario(session, { flatScenario, emitEvent, diag, AIR_ITEM, attribute }),
  // combat.js at night: two zombies come a second after the spawn
  night: (session) => require('./combat.js').scenario(session, { flatScenario, emitEvent, diag, AIR_ITEM, attribute }, { night: true }),
  // farm.js: the survival scenario with a wheat field around the spawn (till, plant, bone meal, harvest)
  farm: (session) => require('./farm.js').scenario(session, { flatScenario, emitEvent, diag, AIR_ITEM, attribute }),
  // writing.js: the survival scenario with signs and books and quill (sign editing, book_edit)
  writing: (session) => require('./writing.js').scenario(session, { flatScenario, emitEvent, diag, AIR_ITEM, attribute }),
  // ranged.js: the survival scenario with water/lava to bucket, fall damage, a bow and arrows, walking targets
  ranged: (session) => require('./ranged.js').scenario(session, { flatScenario, emitEvent, diag, AIR_ITEM, attribute }),
  // trade.js: the survival scenario with a farmer villager (UpdateTrade, trades as item-stack requests)
  trade: (session) => require('./trade.js').scenario(session, { flatScenario, emitEvent, diag, AIR_ITEM, attribute })
}

// ---------------------------------------------------------------------------------------------------------------------
// Login logging helpers
// ---------------------------------------------------------------------------------------------------------------------

// Handlers of client packets must never take the server down (a malformed but decodable packet, a write failure)
function safely (what, fn) {
  try { fn() } catch (e) { diag(`handler ${what} failed:`, e?.stack || String(e)) }
}

function decodeJwtPayload (jwt) {
  try {
    const parts = String(jwt).split('.')
    if (parts.length < 2) return null
    return JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'))
  } catch (e) {
    return null
  }
}

function shrinkLongStrings (obj, max = 256) {
  if (obj === null || typeof obj !== 'object') return obj
  const out = Array.isArray(obj) ? [] : {}
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v === 'string' && v.length > max) out[k] = `<${v.length} chars>`
    else if (typeof v === 'object') out[k] = shrinkLongStrings(v, max)
    else out[k] = v
  }
  return out
}

// The login params hold the whole client-data JWT (skin images, ~100s of KB). Log the identity JSON as-is and the
// client-data claims with long strings replaced by "<N chars>".
function summarizeLogin (params) {
  const tokens = params.tokens || {}
  let identity = tokens.identity
  try { identity = JSON.parse(tokens.identity) } catch (e) { }
  return {
    protocol_version: params.protocol_version,
    tokens: {
      identity,
      identity_claims: identity && typeof identity === 'object' ? decodeJwtPayload(identity.Token) : null,
      client_len: tokens.client ? tokens.client.length : 0,
      client_claims: shrinkLongStrings(decodeJwtPayload(tokens.client))
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// --refuse-login token|chain: a server that reads offline identities in one shape only. A login in the other shape
// is refused the way SerenityJS refuses a token-shaped one: Disconnect reason not_authenticated, a message naming what
// is missing, then the connection closes. (bedrock-protocol itself accepts both shapes.)
function refuseLoginShape (player, session, refused) {
  const verify = player.verifyLogin.bind(player)
  player.verifyLogin = async (envelope) => {
    const shape = envelope.multiplayerToken ? 'token' : 'chain'
    if (shape === refused) {
      const error = new Error(shape === 'token'
        ? 'Invalid offline certificate: missing extraData'
        : 'Invalid offline login: missing multiplayer token')
      error.refusedShape = shape
      throw error
    }
    return verify(envelope)
  }
  const reject = player.rejectLogin.bind(player) // the logging wrapper installed above
  player.rejectLogin = (error) => {
    if (!error?.refusedShape) return reject(error)
    emitEvent({ event: 'login_shape_refused', client: session.id, shape: error.refusedShape })
    logLine({ name: '__login_rejected', error: error.message, shape: error.refusedShape, client: session.id })
    if (!player.loginState.reject()) return
    const message = `Your client is not authenticated or your authentication token expired. Error:\n${error.message}`
    player.write('disconnect', { reason: 'not_authenticated', hide_disconnect_reason: false, message, filtered_message: '' })
    setTimeout(() => player.close('kick'), 100)
  }
}

// Online mode (--online-auth BASE_URL): logins are verified as an Xbox-authenticated server verifies them, with
// bedrock-protocol's own verifier and offline (self-signed) logins refused. The only swap: the OIDC discovery,
// OpenID configuration and JWKS requests for the multiplayer token go to BASE_URL (the loopback fake of the
// Minecraft services, clawcraft-auth's `fake`) instead of the public services, so the fake's signing key is trusted.
// ---------------------------------------------------------------------------------------------------------------------

function onlineLoginVerifier (baseUrl, version) {
  const http = require('http')
  const { createLoginVerifier } = require('bedrock-protocol/src/auth/loginVerifier')
  const { createOidcVerifier } = require('bedrock-protocol/src/handshake/oidc')
  const fetchJson = (url) => new Promise((resolve, reject) => {
    const { pathname, search } = new URL(url)
    http.get(new URL(pathname + search, baseUrl), { headers: { Accept: 'application/json' } }, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`OIDC request ${pathname} failed with status ${res.statusCode}`))
        try { resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) } catch (e) { reject(e) }
      })
    }).on('error', reject)
  })
  const oidc = createOidcVerifier({ fetchJson })
  return createLoginVerifier({ offline: false, version }, { verifyOidcToken: (token, v) => oidc.verify(token, v) }).verifyLogin
}

// ---------------------------------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------------------------------

// The parsed command line, for the handlers outside main().
let peerOptions = {}

async function main () {
  const args = parseArgs(process.argv.slice(2))
  peerOptions = args
  if (!isolateStdout()) return relayThroughChild()
  if (process.env.CLAWCRAFT_PEER_RELAYED === '1') {
    process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM')) // parent went away
    process.stdin.resume()
  }
  if (!SCENARIOS[args.scenario]) usage(`unknown scenario ${args.scenario} (have: ${Object.keys(SCENARIOS).join(', ')})`)
  if (args.log) {
    fs.mkdirSync(path.dirname(path.resolve(args.log)), { recursive: true })
    logFd = fs.openSync(args.log, 'a')
  }
  if (args.sentLog) {
    fs.mkdirSync(path.dirname(path.resolve(args.sentLog)), { recursive: true })
    sentFd = fs.openSync(args.sentLog, 'a')
  }

  let bedrock
  try {
    bedrock = require('bedrock-protocol')
  } catch (e) {
    process.stderr.write(`server.js: cannot load bedrock-protocol (run tests/peer/install.sh first): ${e.message}\n`)
    process.exit(3)
  }
  const mcData = require('minecraft-data')('bedrock_' + args.version)

  const server = new bedrock.Server({
    host: args.host, // loopback only
    port: args.port,
    version: args.version,
    offline: !args.onlineAuth, // offline: no Xbox Live auth; encryption still happens (bedrock-protocol always does the ECDH handshake)
    raknetBackend: 'raknet-native',
    compressionAlgorithm: 'deflate',
    compressionThreshold: 1,
    compressionLevel: 7,
    maxPlayers: args.maxPlayers, // RakNet's connection limit too
    motd: { motd: args.motd, levelName: 'clawcraft flat' }
  })

  const ctx = {
    server,
    version: args.version,
    mcData,
    // Packets are written in the 1.26.40+ shape; this puts them in the served version's.
    fit: forVersion(mcData.protocol.types),
    world: new World(mcData, { hashes: args.blockHashes, name: args.world, map: args.world === 'flat' ? null : loadMap(args.world) }),
    chunkMode: args.chunks,
    sessions: new Map(), // address -> Session
    nextId: 1,
    closeSession (session, reason) {
      if (session.closed) return
      session.clearTimers()
      session.serverClosed = true
      try { session.player.close(reason) } catch (e) { diag('close failed', e.message) }
      session.closed = true
      // RakNet reports no disconnect for a connection we closed ourselves; if the client did not disconnect first,
      // report it here so every session ends with exactly one client_disconnected.
      setTimeout(() => ctx.reportDisconnect(session, session.address, 'server_closed', null), 500)
    },
    reportDisconnect (session, address, reason, raknetId) {
      if (session?.disconnectReported) return
      // after we closed the connection RakNet still reports ID_DISCONNECTION_NOTIFICATION; that is not the client's doing
      if (session?.serverClosed && reason === 'disconnection_notification') reason = 'server_closed'
      if (session) session.disconnectReported = true
      logLine({ name: '__disconnect', reason, raknet_id: raknetId, address, client: session?.id })
      emitEvent({ event: 'client_disconnected', reason, username: session?.username ?? null, address, packet_counts: session?.packetCounts ?? {} })
      diag(`client ${address} disconnected: ${reason}`)
      if (session) {
        session.clearTimers()
        session.closed = true
        if (ctx.sessions.get(address) === session) ctx.sessions.delete(address)
      }
    }
  }

  // Log every decoded packet the client sends: wrap the shared deserializer and note which player is reading.
  let currentSession = null
  const deserializer = server.deserializer
  const origParse = deserializer.parsePacketBuffer.bind(deserializer)
  deserializer.parsePacketBuffer = (buf) => {
    let des
    try {
      des = origParse(buf)
    } catch (e) {
      let id = 0 // varuint header; bits 0-9 = packet id
      for (let i = 0, shift = 0; i < Math.min(buf.length, 5); i++, shift += 7) { id |= (buf[i] & 0x7f) << shift; if (!(buf[i] & 0x80)) break }
      id &= 0x3ff
      logLine({ name: '__decode_error', error: e.message, packet_id: id, raw: buf, client: currentSession?.id })
      diag(`decode error (packet id 0x${id.toString(16)}): ${e.message}`)
      if (args.strictDecode) throw e // bedrock-protocol then disconnects the client with "Server error"
      // lenient (default): drop the packet, keep the session alive; bedrock-protocol emits '__undecodable' and ignores it
      return { data: { name: '__undecodable', params: {} }, metadata: { size: buf.length }, buffer: buf, fullBuffer: buf }
    }
    const name = des?.data?.name
    const params = des?.data?.params
    const extra = {}
    const size = des?.metadata?.size
    if (typeof size === 'number' && size < buf.length) {
      extra.trailing_bytes = buf.length - size // the packet had bytes the 1.26.45 definition does not read
      diag(`${name}: ${extra.trailing_bytes} trailing bytes not decoded`)
    }
    if (args.logRaw) extra.raw = buf
    if (currentSession?.arrival != null) extra.rx = currentSession.arrival
    if (name === 'login') {
      // Written once the server has verified the login and extracted the username (see 'login' handler below).
      if (currentSession) currentSession.loginLog = { t: Date.now(), name, params: summarizeLogin(params), protocol_version: params.protocol_version, extra }
    } else {
      logLine({ name, params, ...extra, client: currentSession?.id })
    }
    if (currentSession && name) currentSession.packetCounts[name] = (currentSession.packetCounts[name] || 0) + 1
    return des
  }

  server.on('connect', (player) => {
    const session = new Session(ctx, player, ctx.nextId++)
    ctx.sessions.set(session.address, session)
    diag(`connection ${session.id} from ${session.address}`)
    emitEvent({ event: 'connect', address: session.address, client: session.id })

    // The RakNet message's arrival (see the 'encapsulated' wrapper below), for the packets it carries.
    const origHandle = player.handle.bind(player)
    player.handle = (buffer) => {
      session.arrival = session.arrivals.shift() ?? null
      return origHandle(buffer)
    }
    const origRead = player.readPacket.bind(player)
    player.readPacket = (packet) => {
      currentSession = session
      try { return origRead(packet) } finally { currentSession = null }
    }

    if (sentFd !== null) { // --sent-log: every packet the server sends to this client (bedrock-protocol's own included)
      for (const method of ['write', 'queue']) {
        const orig = player[method].bind(player)
        player[method] = (name, params) => {
          sentLine({ address: session.address, name, params })
          return orig(name, params)
        }
      }
    }

    // Surface login failures (bedrock-protocol only debug-logs them before disconnecting "Server authentication error").
    const origReject = player.rejectLogin.bind(player)
    player.rejectLogin = (error) => {
      const message = error?.message || String(error)
      emitEvent({ event: 'login_rejected', client: session.id, error: message })
      logLine({ name: '__login_rejected', error: message, client: session.id })
      diag(`login rejected for ${session.address}: ${error?.stack || message}`)
      return origReject(error)
    }

    if (args.onlineAuth) player.verifyLogin = onlineLoginVerifier(args.onlineAuth, args.version)
    if (args.refuseLogin) refuseLoginShape(player, session, args.refuseLogin)
    const hooks = SCENARIOS[args.scenario](session)
    session.hooks = hooks // handleCommandRequest asks the scenario's onCommand first

    player.on('login', () => {
      session.username = player.profile?.name ?? null
      if (session.loginLog) {
        const l = session.loginLog
        const auth = { authentication: player.authentication, xuid: player.profile?.xuid }
        if (logFd !== null) fs.writeSync(logFd, toJson({ t: l.t, name: 'login', params: l.params, protocol_version: l.protocol_version, username: session.username, ...auth, ...l.extra, client: session.id }) + '\n')
        session.loginLog = null
      }
      diag(`login ${session.username} protocol ${player.version}`)
    })
    player.on('join', () => {
      emitEvent({ event: 'join', username: session.username, protocol_version: player.version })
      hooks.onJoin()
    })
    player.on('resource_pack_client_response', (p) => hooks.onResourcePackResponse(p))
    player.on('request_chunk_radius', (p) => hooks.onRequestChunkRadius(p))
    player.on('subchunk_request', (p) => safely('subchunk_request', () => handleSubChunkRequest(session, p)))
    player.on('command_request', (p) => safely('command_request', () => handleCommandRequest(session, p)))
    player.on('text', (p) => safely('text', () => handleClientText(session, p)))
    player.on('player_auth_input', (p) => safely('movement', () => movement.onInput(session, p, logLine, emitEvent)))
    player.on('packet', (des) => { if (hooks.onPacket) safely(des?.data?.name, () => hooks.onPacket(des.data.name, des.data.params)) })
    player.on('spawn', () => {
      session.spawned = true
      movement.onSpawn(session, session.spawnFeet)
      emitEvent({ event: 'spawned', username: session.username, runtime_id: session.runtimeId, position: session.spawnEye, client: session.id })
      hooks.onSpawn()
      if (ctx.world.map?.timeline) safely('world timeline', () => runWorldTimeline(session))
    })
    player.on('error', (e) => {
      diag(`client ${session.address} error:`, e?.message || String(e))
      logLine({ name: '__error', error: e?.message || String(e) })
    })
    player.on('close', () => {
      session.clearTimers()
      session.closed = true
      if (!session.disconnectReported) session.serverClosed = true
      // closed by bedrock-protocol itself (login rejected, "Server error", ...): see ctx.closeSession
      setTimeout(() => ctx.reportDisconnect(session, session.address, 'server_closed', null), 500)
      // A failed login never reaches 'login'; still record that a login packet arrived.
      if (session.loginLog && logFd !== null) {
        const l = session.loginLog
        fs.writeSync(logFd, toJson({ t: l.t, name: 'login', params: l.params, protocol_version: l.protocol_version, username: null, rejected: true, ...l.extra, client: session.id }) + '\n')
        session.loginLog = null
      }
    })
  })

  try {
    await server.listen()
  } catch (e) {
    process.stderr.write(`server.js: failed to listen on ${args.host}:${args.port}: ${e.message}\n`)
    process.exit(4)
  }

  // When each RakNet message reaches JavaScript, before it is decrypted and decoded: the packet log's
  // `rx` (ms since the epoch, µs resolution), so packets handled late in a burst of many clients'
  // are timed at their arrival. bedrock-protocol hands each message to its client one tick later.
  const deliver = server.raknet.onEncapsulated
  server.raknet.onEncapsulated = (buffer, address) => {
    ctx.sessions.get(address)?.arrivals.push(rxTime())
    return deliver(buffer, address)
  }

  // Raw RakNet-level disconnects. raknet-native (lib/RakNet.js) emits 'closeConnection' (client, messageId) with
  // messageId 21 = ID_DISCONNECTION_NOTIFICATION (the client closed cleanly), 22 = ID_CONNECTION_LOST (timeout,
  // ~30 s in raknet-native's RakServer), 25 = ID_INCOMPATIBLE_PROTOCOL_VERSION.
  const RAK_REASONS = { 21: 'disconnection_notification', 22: 'connection_lost', 25: 'incompatible_protocol' }
  // prependListener: run before bedrock-protocol's own handler (which closes the Player and would look like a
  // server-side close to us).
  server.raknet.raknet.prependListener('closeConnection', (con, id) => {
    ctx.reportDisconnect(ctx.sessions.get(con.address), con.address, RAK_REASONS[id] || `raknet_${id}`, id)
  })

  emitEvent({ event: 'listening', port: args.port })
  // encode the chunks around spawn now (mixed map: ~200 ms) instead of during the first client's join
  setImmediate(() => safely('chunk warm-up', () => {
    for (let x = -MAX_CHUNK_RADIUS; x <= MAX_CHUNK_RADIUS; x++) {
      for (let z = -MAX_CHUNK_RADIUS; z <= MAX_CHUNK_RADIUS; z++) {
        if (x * x + z * z > MAX_CHUNK_RADIUS * MAX_CHUNK_RADIUS) continue
        if (ctx.chunkMode === 'request') ctx.world.highestFilled(x, z); else ctx.world.fullPayload(x, z)
      }
    }
  }))
  diag(`block ids (${ctx.world.hashes ? 'hashes' : 'palette indices'}): ${toJson(ctx.world.ids)}`)
  diag(`listening on ${args.host}:${args.port} version ${args.version} scenario ${args.scenario}`)

  let stopping = false
  const stop = async (sig) => {
    if (stopping) return
    stopping = true
    diag(`${sig}: shutting down`)
    try {
      let open = 0
      for (const s of ctx.sessions.values()) {
        s.clearTimers()
        if (s.closed) continue
        s.serverClosed = true
        try { s.player.disconnect('Server closed'); open++ } catch (e) { }
      }
      if (open) await new Promise(resolve => setTimeout(resolve, 250)) // let the disconnect packets leave
      await Promise.race([server.close('Server closed'), new Promise(resolve => setTimeout(resolve, 1500))])
    } catch (e) {
      diag('close error', e.message)
    }
    if (logFd !== null) { try { fs.closeSync(logFd) } catch (e) { } }
    process.exit(0)
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
}

process.stderr.on('error', () => { stderrOk = false })
let inUncaught = false
process.on('uncaughtException', (e) => {
  if (inUncaught) return
  inUncaught = true
  try {
    diag('uncaught exception:', e?.stack || String(e))
    // e.g. a client batch with an unknown compression byte or bad deflate data, thrown from bedrock-protocol's decryptor
    logLine({ name: '__error', error: `uncaught: ${e?.message || String(e)}` })
  } finally { inUncaught = false }
})
process.on('unhandledRejection', (e) => {
  diag('unhandled rejection:', e?.stack || String(e))
})

main().catch((e) => {
  process.stderr.write(`server.js: fatal: ${e?.stack || e}\n`)
  process.exit(1)
})
