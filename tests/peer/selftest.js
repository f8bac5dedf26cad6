#!/usr/bin/env node
// Self-test of the peer with bedrock-protocol's own client: starts server.js for each scenario on a free loopback
// port, connects, and checks the expected outcome. Usage: node selftest.js [scenario...]   (exit 0 = all passed)
'use strict'
const DEFAULT_VERSION = require('./shapes.js').defaultVersion()

const { spawn } = require('child_process')
const dgram = require('dgram')
const fs = require('fs')
const os = require('os')
const path = require('path')
const readline = require('readline')

console.log = console.info = console.debug = (...a) => console.error(...a) // bp client chatter -> stderr

function freePort () {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4')
    s.on('error', reject)
    s.bind(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)) })
  })
}

async function startPeer (scenario, extraArgs = []) {
  const port = await freePort()
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'peer-selftest-')), 'peer.jsonl')
  const proc = spawn(process.execPath, [path.join(__dirname, 'server.js'), '--port', String(port), '--log', log, '--scenario', scenario, ...extraArgs],
    { stdio: ['ignore', 'pipe', 'pipe'] })
  const events = []
  const stderr = []
  proc.stderr.on('data', d => stderr.push(d.toString()))
  const rl = readline.createInterface({ input: proc.stdout })
  const nonJson = []
  await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('peer did not print listening within 15 s\n' + stderr.join(''))), 15000)
    rl.on('line', (line) => {
      let ev
      try { ev = JSON.parse(line) } catch (e) { nonJson.push(line); return }
      events.push(ev)
      if (ev.event === 'listening') { clearTimeout(t); resolve() }
    })
    proc.on('exit', (code) => { clearTimeout(t); reject(new Error(`peer exited early (${code})\n${stderr.join('')}`)) })
  })
  const readLog = () => fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l)) : []
  const stop = () => new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve(proc.exitCode)
    proc.once('exit', (code, sig) => resolve(code ?? sig))
    proc.kill('SIGTERM')
  })
  return { port, log, proc, events, nonJson, readLog, stop, stderr }
}

function connect (bedrock, port, { waitMs = 4000, onSpawn = null } = {}) {
  return new Promise((resolve) => {
    const r = { spawned: false, kick: null, errors: [], closed: false, packets: [] }
    const client = bedrock.createClient({ host: '127.0.0.1', port, version: DEFAULT_VERSION, offline: true, username: 'BpSelfTest', raknetBackend: 'raknet-native', connectTimeout: 8000, skipPing: true })
    client.on('packet', (des) => r.packets.push({ name: des.data.name, params: des.data.params }))
    client.on('spawn', () => { r.spawned = true; if (onSpawn) onSpawn(client) })
    client.on('kick', (p) => { r.kick = p })
    client.on('error', (e) => { r.errors.push(String(e?.message || e)) })
    client.on('close', () => { r.closed = true })
    setTimeout(() => { try { client.close() } catch (e) { } setTimeout(() => resolve(r), 500) }, waitMs)
  })
}

// Independent decoder for a full-mode LevelChunk payload -> column of block ids by absolute y
function decodeColumn (buf, subChunkCount) {
  let o = 0
  const u8 = () => buf[o++]
  const varu = () => { let v = 0; let shift = 0; let b; do { b = buf[o++]; v += (b & 0x7f) * 2 ** shift; shift += 7 } while (b & 0x80); return v }
  const vari = () => { const v = varu(); return (v % 2) ? -(v + 1) / 2 : v / 2 }
  const column = {} // absolute y -> runtime id at x=3,z=5 (any column: the world is flat)
  for (let i = 0; i < subChunkCount; i++) {
    const version = u8(); if (version !== 9) throw new Error(`sub-chunk ${i}: version ${version}`)
    const count = u8(); const y = (u8() << 24) >> 24
    if (count < 1) throw new Error('no storages')
    for (let s = 0; s < count; s++) {
      const header = u8(); const bits = header >> 1; if ((header & 1) !== 1) throw new Error('not runtime')
      let words = []
      if (bits > 0) {
        const perWord = Math.floor(32 / bits); const n = Math.ceil(4096 / perWord)
        for (let w = 0; w < n; w++) { words.push(buf.readUInt32LE(o)); o += 4 }
        const pal = []; const pc = vari(); for (let k = 0; k < pc; k++) pal.push(vari())
        if (s === 0) for (let by = 0; by < 16; by++) { const idx = (3 << 8) | (5 << 4) | by; column[y * 16 + by] = pal[(words[Math.floor(idx / perWord)] >>> ((idx % perWord) * bits)) & ((1 << bits) - 1)] }
      } else {
        const id = vari(); if (s === 0) for (let by = 0; by < 16; by++) column[y * 16 + by] = id
      }
      words = null
    }
  }
  for (let i = 0; i < 24; i++) { const h = u8(); if (h === 0xff) continue; const bits = h >> 1; if (bits !== 0) throw new Error('biome bits'); vari() }
  if (u8() !== 0) throw new Error('border byte')
  if (o !== buf.length) throw new Error(`trailing ${buf.length - o} bytes`)
  return column
}

// Independent decoder of one network sub-chunk (version 9) at buf[o] -> { y, storages: [{ bits, palette, at(x,y,z) }], end }
function decodeSubChunk (buf, o = 0) {
  const u8 = () => buf[o++]
  const varu = () => { let v = 0; let shift = 0; let b; do { b = buf[o++]; v += (b & 0x7f) * 2 ** shift; shift += 7 } while (b & 0x80); return v }
  const vari = () => { const v = varu(); return (v % 2) ? -(v + 1) / 2 : v / 2 }
  const version = u8(); if (version !== 9) throw new Error(`sub-chunk version ${version}`)
  const count = u8(); const y = (u8() << 24) >> 24
  const storages = []
  for (let s = 0; s < count; s++) {
    const header = u8(); const bits = header >> 1; if ((header & 1) !== 1) throw new Error('not runtime')
    if (bits === 0) { const id = vari(); storages.push({ bits, palette: [id], at: () => id }); continue }
    const perWord = Math.floor(32 / bits); const n = Math.ceil(4096 / perWord); const words = []
    for (let w = 0; w < n; w++) { words.push(buf.readUInt32LE(o)); o += 4 }
    const pal = []; const pc = vari(); for (let k = 0; k < pc; k++) pal.push(vari())
    storages.push({ bits, palette: pal, at: (x, by, z) => { const idx = (x << 8) | (z << 4) | by; return pal[(words[Math.floor(idx / perWord)] >>> ((idx % perWord) * bits)) & ((1 << bits) - 1)] } })
  }
  return { y, storages, end: o }
}

// id -> "name{states}" for palette indices or hashes
function stateNamer (hashes) {
  const states = require('minecraft-data')('bedrock_' + DEFAULT_VERSION).blockStates
  const { blockStateHash } = require('./world.js')
  const fmt = (st) => st.name + JSON.stringify(Object.fromEntries(Object.entries(st.states).map(([k, v]) => [k, v.value]).sort()))
  if (!hashes) return (id) => states[id] ? fmt(states[id]) : `?${id}`
  const m = new Map(states.map(st => [blockStateHash(st), fmt(st)]))
  return (id) => m.get(id) ?? `?${id}`
}
const mapBlockName = (b) => b.name + JSON.stringify(Object.fromEntries(Object.entries(b.states || {}).sort()))

// Check every map block inside sub-chunk (cx, sy, cz) against a decoded sub-chunk; returns list of mismatches
function checkMapBlocks (map, cx, sy, cz, sub, name) {
  const bad = []
  for (const b of map.blocks) {
    if ((b.x >> 4) !== cx || (b.y >> 4) !== sy || (b.z >> 4) !== cz) continue
    const lx = b.x - cx * 16; const ly = b.y - sy * 16; const lz = b.z - cz * 16
    const got = name(sub.storages[0].at(lx, ly, lz))
    if (got !== mapBlockName(b)) bad.push({ at: [b.x, b.y, b.z], want: mapBlockName(b), got })
    if (b.layer1) {
      const got1 = sub.storages[1] ? name(sub.storages[1].at(lx, ly, lz)) : 'no layer 1'
      if (got1 !== mapBlockName(b.layer1)) bad.push({ at: [b.x, b.y, b.z], layer: 1, want: mapBlockName(b.layer1), got: got1 })
    }
  }
  for (const f of (map.fills || [])) { // corners and centre of each fill box
    const xs = [f.from.x, f.to.x]; const ys = [f.from.y, f.to.y]; const zs = [f.from.z, f.to.z]
    const pts = [[(f.from.x + f.to.x) >> 1, (f.from.y + f.to.y) >> 1, (f.from.z + f.to.z) >> 1]]
    for (const x of xs) for (const y of ys) for (const z of zs) pts.push([x, y, z])
    for (const [x, y, z] of pts) {
      if ((x >> 4) !== cx || (y >> 4) !== sy || (z >> 4) !== cz) continue
      const got = name(sub.storages[0].at(x - cx * 16, y - sy * 16, z - cz * 16))
      if (got !== mapBlockName(f)) bad.push({ at: [x, y, z], fill: f.tag, want: mapBlockName(f), got })
    }
  }
  return bad
}

const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))

const CHECKS = {
  async 'flat-hashes' (bedrock) {
    const peer = await startPeer('flat', ['--block-hashes'])
    const r = await connect(bedrock, peer.port, { waitMs: 2500 })
    const code = await peer.stop()
    const sg = r.packets.find(p => p.name === 'start_game')?.params
    const chunk = r.packets.find(p => p.name === 'level_chunk')?.params
    const col = chunk ? decodeColumn(chunk.payload, chunk.sub_chunk_count) : {}
    const want = { '-64': -173245189, '-63': -2108756090, '-61': -567203660, '-60': -604749536 } // bedrock, dirt, grass, air (air = 0xDBF44120)
    const ok = r.spawned && sg?.block_network_ids_are_hashes === true && Object.entries(want).every(([y, id]) => col[y] === id) && code === 0
    return { ok, spawned: r.spawned, hashes_flag: sg?.block_network_ids_are_hashes, column: Object.fromEntries(Object.keys(want).map(y => [y, col[y]])) }
  },
  async flat (bedrock) {
    const peer = await startPeer('flat')
    const r = await connect(bedrock, peer.port, { waitMs: 3000 })
    // second client on the same server instance
    const r2 = await connect(bedrock, peer.port, { waitMs: 2500 })
    await sleep(500)
    const names = peer.readLog().map(l => l.name)
    const code = await peer.stop()
    const login = peer.readLog().find(l => l.name === 'login')
    const want = ['request_network_settings', 'login', 'client_to_server_handshake', 'resource_pack_client_response', 'request_chunk_radius', 'set_local_player_as_initialized', 'network_stack_latency', '__disconnect']
    const missing = want.filter(n => !names.includes(n))
    const chunkPackets = r.packets.filter(p => p.name === 'level_chunk')
    const chunks = chunkPackets.length
    const states = require('minecraft-data')('bedrock_' + DEFAULT_VERSION).blockStates
    const col = decodeColumn(chunkPackets[0].params.payload, chunkPackets[0].params.sub_chunk_count)
    const nameAt = (y) => states[col[y]]?.name
    const terrain = [-64, -63, -62, -61, -60, 100].map(y => `${y}:${nameAt(y)}`).join(' ')
    const terrainOk = terrain === '-64:bedrock -63:dirt -62:dirt -61:grass_block -60:air 100:air'
    const ns = r.packets.find(p => p.name === 'network_settings')?.params
    const sg = r.packets.find(p => p.name === 'start_game')?.params
    const ok = r.spawned && r2.spawned && missing.length === 0 && login?.username === 'BpSelfTest' && login?.protocol_version > 0 && code === 0 &&
      peer.events[0].event === 'listening' && peer.nonJson.length === 0 && chunks > 0 && terrainOk &&
      ns?.compression_threshold === 1 && Math.abs(sg?.player_position?.y + 58.38) < 1e-4
    return { ok, terrain, network_settings: ns, start_game_pos: sg?.player_position, spawned: [r.spawned, r2.spawned], level_chunks: chunks, missing, login_username: login?.username, login_protocol: login?.protocol_version, exit: code, non_json_stdout: peer.nonJson, events: peer.events.map(e => e.event) }
  },
  async kick (bedrock) {
    const peer = await startPeer('kick')
    const r = await connect(bedrock, peer.port, { waitMs: 3500 })
    await peer.stop()
    const ok = r.spawned && r.kick?.message === 'Kicked by test peer'
    return { ok, spawned: r.spawned, kick: r.kick, events: peer.events.map(e => e.event) }
  },
  async 'bad-checksum' (bedrock) {
    const peer = await startPeer('bad-checksum')
    const r = await connect(bedrock, peer.port, { waitMs: 3000 })
    await sleep(300)
    const names = peer.readLog().map(l => l.name)
    await peer.stop()
    const ok = !r.spawned && r.errors.some(e => /checksum/i.test(e))
    return { ok, spawned: r.spawned, client_errors: r.errors, peer_log: names, events: peer.events.map(e => e.event) }
  },
  async survival (bedrock) {
    // the survival server side refuses a break that comes too early and accepts one on time: dirt by hand is
    // 15 ticks (hardness 0.5 × 30); a predict_break 2 ticks after start_break is refused (the block is sent back),
    // one 15 ticks after is accepted (air, a dirt drop)
    const peer = await startPeer('survival')
    const input = (tick, actions) => ({
      pitch: 0, yaw: 0, position: { x: 0.5, y: -58.38, z: 0.5 }, move_vector: { x: 0, z: 0 }, head_yaw: 0,
      input_data: actions.length ? ['block_action'] : [], input_mode: 'mouse', play_mode: 'normal', interaction_model: 'crosshair',
      interact_rotation: { x: 0, z: 0 }, tick: BigInt(tick), delta: { x: 0, y: 0, z: 0 },
      transaction_presence: true, item_stack_request_presence: true,
      block_action_presence: true, block_action: actions.length ? actions : undefined,
      vehicle_rotation_presence: true, predicted_vehicle_presence: true,
      analogue_move_vector: { x: 0, z: 0 }, camera_orientation: { x: 0, y: 0, z: 1 }, raw_move_vector: { x: 0, z: 0 }
    })
    const pos = { x: -2, y: -60, z: 0 }
    const act = (action) => ({ action, position: pos, face: 5 })
    const r = await connect(bedrock, peer.port, {
      waitMs: 3500,
      onSpawn: (c) => setTimeout(() => {
        c.write('mob_equipment', { runtime_entity_id: 1n, item: { network_id: 0, count: 0, metadata: 0, has_stack_id: false, block_runtime_id: 0, extra: { has_nbt: 'false', can_place_on: [], can_destroy: [] } }, slot: 6, selected_slot: 6, window_id: 'inventory' })
        c.write('player_auth_input', input(100, [act('start_break')]))
        c.write('player_auth_input', input(102, [act('continue_break'), act('predict_break')]))
        c.write('player_auth_input', input(200, [act('start_break')]))
        c.write('player_auth_input', input(215, [act('continue_break'), act('predict_break')]))
      }, 500)
    })
    await sleep(300)
    await peer.stop()
    const refused = peer.events.find(e => e.event === 'break_refused')
    const broken = peer.events.find(e => e.event === 'block_broken')
    const updates = r.packets.filter(p => p.name === 'update_block' && p.params.position.x === -2)
    const ok = r.spawned && refused?.why === 'too early' && refused.elapsed === 2 && refused.expected === 15 &&
      broken?.elapsed === 15 && broken.expected === 15 && broken.drops[0] === 'dirt' && updates.length === 2 &&
      r.packets.some(p => p.name === 'add_item_entity')
    return { ok, spawned: r.spawned, refused, broken, update_blocks: updates.length }
  },
  async sleep (bedrock) {
    // vanilla's sleeping rules on the survival bed (head -2,-60,-2, foot -2,-60,-3), clicked with an empty hand:
    // by day refused (tile.bed.noSleep) even with the scenario's zombie near; at night the zombie 4.5 blocks from the
    // bed refuses it (tile.bed.notSafe); with zombies 9 blocks away and 6 above it is granted (move_player reset onto
    // the bed, sleeping flag, bed position); one 8 blocks away refuses it again. The respawn point is set once.
    const peer = await startPeer('survival')
    const origin = (id) => ({ type: 'player', uuid: '11111111-2222-3333-4444-555555555555', request_id: id, player_entity_id: 0n })
    const air = { network_id: 0, count: 0, metadata: 0, has_stack_id: false, block_runtime_id: 0, extra: { has_nbt: 'false', can_place_on: [], can_destroy: [] } }
    const v = (x, y, z) => ({ x, y, z })
    const click = {
      transaction: {
        legacy: { legacy_request_id: 0 },
        transaction_type: 'item_use',
        actions: [],
        transaction_data: {
          action_type: 'click_block', trigger_type: 'player_input', block_position: v(-2, -60, -2), face: 1, hotbar_slot: 6,
          held_item: air, player_pos: v(0.5, -58.38, 0.5), click_pos: v(0.5, 0.5625, 0.5), block_runtime_id: 0,
          client_prediction: 'success', client_cooldown_state: 'off'
        }
      }
    }
    const steps = [
      ['cmd', '/time set noon'], ['click'],
      ['cmd', '/time set night'], ['click'],
      ['cmd', '/kill @e[type=zombie]'], ['cmd', '/summon zombie -11 -60 -1.5'], ['cmd', '/summon minecraft:zombie -1.5 -54 -1.5'], ['click'],
      ['wake'], ['cmd', '/summon zombie -10 -60 -1.5'], ['click']
    ]
    const r = await connect(bedrock, peer.port, {
      waitMs: 4000,
      onSpawn: (c) => setTimeout(() => {
        c.write('mob_equipment', { runtime_entity_id: 1n, item: air, slot: 6, selected_slot: 6, window_id: 'inventory' })
        steps.forEach(([what, arg], i) => {
          if (what === 'cmd') c.write('command_request', { command: arg, origin: origin(`s${i}`), internal: false, version: 'latest' })
          else if (what === 'click') c.write('inventory_transaction', click)
          else c.write('player_action', { runtime_entity_id: 1n, action: 'stop_sleeping', position: v(0, 0, 0), result_position: v(0, 0, 0), face: 0 })
        })
      }, 800)
    })
    await sleep(300)
    await peer.stop()
    const verdicts = peer.events.filter(e => e.event === 'sleep_refused' || e.event === 'sleeping').map(e => e.reason || e.event)
    const texts = r.packets.filter(p => p.name === 'text').map(p => p.params.message)
    const mp = r.packets.find(p => p.name === 'move_player')?.params
    const sed = r.packets.filter(p => p.name === 'set_entity_data' && p.params.metadata.some(m => m.key === 'player_bed_position')).map(p => p.params)
    const near = (a, b) => Math.abs(a - b) < 1e-4
    const bed = sed[0]?.metadata.find(m => m.key === 'player_bed_position')?.value
    const ok = r.spawned && JSON.stringify(verdicts) === JSON.stringify(['not_night', 'monsters_nearby', 'sleeping', 'monsters_nearby']) &&
      JSON.stringify(texts) === JSON.stringify(['\u00a77%tile.bed.respawnSet', '\u00a77%tile.bed.noSleep', '\u00a77%tile.bed.notSafe', '\u00a77%tile.bed.notSafe']) &&
      mp?.mode === 'reset' && near(mp.position.x, -1.5) && near(mp.position.y, -60 + 0.5625 + 1.62) && near(mp.position.z, -1.5) &&
      sed.length === 1 && bed?.x === -2 && bed?.y === -60 && bed?.z === -2 && peer.events.some(e => e.event === 'woke')
    return { ok, spawned: r.spawned, verdicts, texts, move_player: mp, bed, refusals: peer.events.filter(e => e.event === 'sleep_refused') }
  },
  async crafting (bedrock) {
    // the crafting server side validates crafts against minecraft-data's recipes: a 3×3 recipe at the 2×2 grid, an
    // unknown recipe, a craft without its ingredients and one announcing the wrong result are refused; a correct
    // one (1 oak log → 4 oak planks) is accepted
    const peer = await startPeer('crafting')
    const mcData = require('minecraft-data')('bedrock_' + DEFAULT_VERSION)
    const recipes = require('./crafting.js').loadRecipes(mcData)
    const idOf = (id) => recipes.find(r => r.id === id).networkId
    const slot = (c, i, id) => ({ slot_type: { container_id: c }, slot: i, stack_id: id })
    const auto = (id) => ({ type_id: 'craft_recipe_auto', legacy_type_id: 13, recipe_network_id: id, times_crafted: 1, ingredients: [] })
    const results = (name, count) => ({
      type_id: 'results_deprecated', legacy_type_id: 19, times_crafted: 1,
      result_items: [{ type: 'name', legacy_type: 0, name: 'minecraft:' + name, metadata: 0, count, block_runtime_id: 0, extra: { has_nbt: 'false', can_place_on: [], can_destroy: [] } }]
    })
    const consumeLog = { type_id: 'consume', legacy_type_id: 5, count: 1, source: slot('hotbar', 0, 1) }
    const place = (req) => ({ type_id: 'place', legacy_type_id: 1, count: 4, source: slot('creative_output', 50, req), destination: slot('inventory', 9, 0) })
    const planks = idOf('minecraft:oak_planks')
    const requests = [
      [-1, [auto(idOf('tool_material_recipe_0_0')), results('wooden_pickaxe', 1)]],
      [-3, [auto(999999)]],
      [-5, [auto(planks), results('oak_planks', 4), place(-5)]],
      [-7, [auto(planks), results('stick', 4), consumeLog, place(-7)]],
      [-9, [auto(planks), results('oak_planks', 4), consumeLog, place(-9)]]
    ]
    const r = await connect(bedrock, peer.port, {
      waitMs: 3500,
      onSpawn: (c) => setTimeout(() => {
        c.write('interact', { action_id: 'open_inventory', target_entity_id: 1n, has_position: false })
        for (const [id, actions] of requests) c.write('item_stack_request', { requests: [{ request_id: id, actions, custom_names: [], cause: 'chat_public' }] })
      }, 800)
    })
    await sleep(300)
    await peer.stop()
    const refused = peer.events.filter(e => e.event === 'stack_refused').map(e => e.why)
    const crafted = peer.events.filter(e => e.event === 'crafted')
    const answers = r.packets.filter(p => p.name === 'item_stack_response').map(p => p.params.responses[0]).map(x => [x.request_id, x.status])
    const ok = r.spawned && refused.length === 4 && refused[0] === 'needs a crafting table' && refused[1] === 'no recipe 999999' &&
      refused[2].startsWith('missing ingredients') && refused[3].startsWith('results stick') &&
      crafted.length === 1 && crafted[0].count === 4 && JSON.stringify(answers) === JSON.stringify([[-1, 'error'], [-3, 'error'], [-5, 'error'], [-7, 'error'], [-9, 'ok']]) &&
      r.packets.some(p => p.name === 'crafting_data')
    return { ok, spawned: r.spawned, refused, crafted, answers }
  },
  async 'decode-error' (bedrock) {
    // a truncated player_auth_input (id 0x90) must be logged as __decode_error and must not end the session
    const peer = await startPeer('flat')
    const r = await connect(bedrock, peer.port, { waitMs: 2500, onSpawn: (c) => setTimeout(() => c.sendBuffer(Buffer.from([0x90, 0x01, 0xff]), true), 300) })
    await sleep(300)
    const lines = peer.readLog()
    await peer.stop()
    const err = lines.find(l => l.name === '__decode_error')
    const ok = r.spawned && !!err && err.packet_id === 0x90 && !r.kick && lines[lines.length - 1].reason === 'disconnection_notification'
    return { ok, spawned: r.spawned, decode_error: err, kicked: r.kick }
  },
  async mixed (bedrock) {
    // full-mode chunks of the mixed map (palette indices): every map block decodes to its exact state; world timeline
    const peer = await startPeer('flat', ['--world', 'mixed'])
    const r = await connect(bedrock, peer.port, { waitMs: 5200 })
    const code = await peer.stop()
    const map = JSON.parse(fs.readFileSync(path.join(__dirname, 'maps', 'mixed.json'), 'utf8'))
    const name = stateNamer(false)
    const chunks = new Map(r.packets.filter(p => p.name === 'level_chunk').map(p => [`${p.params.x},${p.params.z}`, p.params]))
    const bad = []
    const bits = {}
    for (const key of ['0,0', '0,-1', '-1,0', '-1,-1', '5,5', '4,-4']) {
      const c = chunks.get(key)
      if (!c) { bad.push({ missing_chunk: key }); continue }
      let o = 0
      for (let i = 0; i < c.sub_chunk_count; i++) {
        const sub = decodeSubChunk(c.payload, o); o = sub.end
        if (sub.y >= -4 && sub.y <= -2) bits[`${key} sy${sub.y}`] = sub.storages.map(st => st.bits).join('/')
        bad.push(...checkMapBlocks(map, c.x, sub.y, c.z, sub, name))
      }
    }
    const got = (n) => r.packets.filter(p => p.name === n)
    const ub = got('update_block').map(p => p.params)
    const usb = got('update_subchunk_blocks')[0]?.params
    const le = got('level_event').map(p => p.params.event)
    const wantBits = { '0,0 sy-4': '4', '0,-1 sy-4': '3', '-1,0 sy-4': '4/1', '-1,-1 sy-4': '2', '5,5 sy-4': '3', '5,5 sy-3': '1', '0,0 sy-3': '0', '4,-4 sy-2': '0', '4,-4 sy-4': '2' }
    const bitsOk = Object.entries(wantBits).every(([k, v]) => bits[k] === v)
    const doorOk = ub.length === 2 && ub.every(u => name(u.block_runtime_id).includes('"open_bit":1'))
    const usbOk = usb && name(usb.blocks[0].runtime_id) === 'stone{}' && name(usb.extra[0].runtime_id) === 'water{"liquid_depth":0}'
    const evs = peer.events.map(e => e.event)
    const ok = r.spawned && bad.length === 0 && bitsOk && doorOk && usbOk && le.join() === 'start_rain,stop_rain' && got('set_time').length >= 4 &&
      evs.includes('block_updated') && evs.includes('level_event') && evs.includes('time_set') && code === 0
    return { ok, spawned: r.spawned, mismatches: bad.slice(0, 10), bits, door_updates: ub.map(u => name(u.block_runtime_id)), subchunk_update: usb && { x: usb.x, y: usb.y, z: usb.z, blocks: usb.blocks.map(b => name(b.runtime_id)), extra: usb.extra.map(b => name(b.runtime_id)) }, level_events: le, set_time: got('set_time').map(p => p.params.time), events: evs }
  },
  async bds (bedrock) {
    // request mode + hashes + mixed map: LevelChunk without sub-chunks, SubChunkRequest answered per offset
    const peer = await startPeer('bds')
    const requests = [[0, -4, 0], [0, -3, 0], [0, 19, 0], [0, 20, 0], [0, -5, 0], [5, -4, 5], [5, -3, 5], [-1, -4, 0], [0, -4, -1], [-1, -4, -1], [4, -2, -4]]
    const r = await connect(bedrock, peer.port, {
      waitMs: 3500,
      onSpawn: (c) => setTimeout(() => {
        c.write('subchunk_request', { dimension: 0, requests: requests.map(([x, y, z]) => ({ x, y, z })), origin: { x: 0, y: 0, z: 0 } })
        c.write('subchunk_request', { dimension: 1, requests: [{ x: 0, y: 0, z: 0 }], origin: { x: 0, y: 0, z: 0 } })
        c.sendBuffer(Buffer.from([0xaf, 0x01, 0x00, 0x05, 0x01]), true) // truncated subchunk_request: must not kill the server
        c.write('subchunk_request', { dimension: 0, requests: [], origin: { x: 0, y: 0, z: 0 } }) // still answered afterwards
      }, 200)
    })
    await sleep(300)
    const lines = peer.readLog()
    const code = await peer.stop()
    const map = JSON.parse(fs.readFileSync(path.join(__dirname, 'maps', 'mixed.json'), 'utf8'))
    const name = stateNamer(true)
    const sg = r.packets.find(p => p.name === 'start_game')?.params
    const lc = r.packets.filter(p => p.name === 'level_chunk').map(p => p.params)
    const lcBad = lc.filter(c => !(c.sub_chunk_count === 0 && c.payload.length === 49 && c.highest_subchunk_count === ((c.x === 5 && c.z === 5) ? 2 : (c.x === 4 && c.z === -4) ? 3 : 1))).slice(0, 3).map(c => ({ x: c.x, z: c.z, count: c.sub_chunk_count, highest: c.highest_subchunk_count, len: c.payload.length }))
    const lcOk = lc.length > 0 && lc.every(c => c.sub_chunk_count === 0 && c.payload.length === 49 && c.highest_subchunk_count === ((c.x === 5 && c.z === 5) ? 2 : (c.x === 4 && c.z === -4) ? 3 : 1))
    const sc = r.packets.filter(p => p.name === 'subchunk').map(p => p.params)
    const results = sc[0] ? sc[0].entries.map(e => `${e.dx},${e.dy},${e.dz}:${e.result}`) : []
    const bad = []
    const bits = {}
    for (const e of (sc[0]?.entries || [])) {
      if (e.result !== 'success') continue
      const sub = decodeSubChunk(e.payload)
      if (sub.end !== e.payload.length) bad.push({ trailing: e.payload.length - sub.end })
      bits[`${e.dx},${e.dy},${e.dz}`] = sub.storages.map(st => st.bits).join('/')
      bad.push(...checkMapBlocks(map, e.dx, e.dy, e.dz, sub, name))
    }
    const wantResults = ['0,-4,0:success', '0,-3,0:success_all_air', '0,19,0:success_all_air', '0,20,0:y_index_out_of_bounds', '0,-5,0:y_index_out_of_bounds', '5,-4,5:success', '5,-3,5:success', '-1,-4,0:success', '0,-4,-1:success', '-1,-4,-1:success', '4,-2,-4:success']
    const wantBits = { '0,-4,0': '4', '5,-4,5': '3', '5,-3,5': '1', '-1,-4,0': '4/1', '0,-4,-1': '3', '-1,-4,-1': '2', '4,-2,-4': '0' }
    const decodeErr = lines.find(l => l.name === '__decode_error')
    const ok = r.spawned && sg?.block_network_ids_are_hashes === true && lcOk && results.join() === wantResults.join() && bad.length === 0 && Object.entries(wantBits).every(([k, v]) => bits[k] === v) &&
      sc.length === 3 && sc[1].entries[0]?.result === 'invalid_dimension' && sc[2].entries.length === 0 && decodeErr?.packet_id === 0xaf && code === 0
    return { ok, spawned: r.spawned, hashes: sg?.block_network_ids_are_hashes, level_chunks: lc.length, level_chunk_ok: lcOk, level_chunk_bad: lcBad, subchunk_packets: sc.length, results, bits, mismatches: bad.slice(0, 10), decode_error: decodeErr?.error, events: peer.events.map(e => e.event) }
  },
  async living (bedrock) {
    // scripted living world: every step of scripts/living.json arrives; /list and an unknown command are answered;
    // the respawn handshake (client Respawn state 2 + PlayerAction respawn) is answered with health 20 + MovePlayer reset
    const script = JSON.parse(fs.readFileSync(path.join(__dirname, 'scripts', 'living.json'), 'utf8'))
    const peer = await startPeer('living')
    const origin = (id) => ({ type: 'player', uuid: '11111111-2222-3333-4444-555555555555', request_id: id, player_entity_id: 0n })
    const r = await connect(bedrock, peer.port, {
      waitMs: 11500,
      onSpawn: (c) => {
        setTimeout(() => {
          c.write('command_request', { command: '/list', origin: origin('req-list'), internal: false, version: 'latest' })
          c.write('command_request', { command: '/frobnicate now', origin: origin('req-bad'), internal: false, version: 'latest' })
          c.sendBuffer(Buffer.from([0x4d, 0x05, 0x2f, 0x6c]), true) // truncated command_request: logged, session survives
        }, 700)
        c.on('respawn', (p) => {
          if (p.state !== 1) return
          c.write('player_action', { runtime_entity_id: 1n, action: 'respawn', position: { x: 0, y: 0, z: 0 }, result_position: { x: 0, y: 0, z: 0 }, face: -1 })
          c.write('respawn', { position: { x: 0, y: 0, z: 0 }, state: 2, runtime_entity_id: 1n })
        })
      }
    })
    await sleep(300)
    const lines = peer.readLog()
    const code = await peer.stop()
    const got = (n) => r.packets.filter(p => p.name === n).map(p => p.params)
    const count = {}
    for (const p of r.packets) count[p.name] = (count[p.name] || 0) + 1
    const swap = (u) => { const h = u.replace(/-/g, ''); const b = Buffer.from(h, 'hex'); const x = Buffer.concat([Buffer.from(b.subarray(0, 8)).reverse(), Buffer.from(b.subarray(8)).reverse()]).toString('hex'); return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}` }
    const pl = got('player_list').flatMap(p => p.records)
    const adds = pl.filter(x => x.type === 'add').map(x => `${x.username}:${swap(x.uuid) === script.players[x.username]?.uuid}`)
    const removes = pl.filter(x => x.type === 'remove').length
    const texts = got('text')
    const textTypes = [...new Set(texts.map(t => t.type))].sort()
    const npc = got('add_entity').find(e => e.entity_type === 'minecraft:npc')
    const nametag = npc?.metadata?.find(m => m.key === 'nametag')?.value
    const co = got('command_output')
    const coList = co.find(c => c.origin.request_id === 'req-list')
    const coBad = co.find(c => c.origin.request_id === 'req-bad')
    const steps = peer.events.filter(e => e.event === 'script').map(e => e.step)
    const missingSteps = script.steps.map(s => s.step).filter(s => !steps.includes(s))
    const mpReset = got('move_player').find(m => m.mode === 'reset')
    const ctrlOk = texts.some(t => t.message === script.steps.find(s => s.step === 'bob_control_chars').message)
    const stepErrors = peer.events.filter(e => e.event === 'script' && e.error)
    const ok = r.spawned && missingSteps.length === 0 && stepErrors.length === 0 && steps.includes('respawn_client_ready') && adds.join() === 'Alice:true,Bob:true,Carol:true' && removes === 2 &&
      textTypes.length === 12 && texts.length === script.steps.filter(s => s.action === 'text').length && ctrlOk && nametag === 'Trader Tom' && count.add_player === 2 && count.add_entity === 4 && count.add_item_entity === 1 &&
      count.move_entity_delta === 35 && count.move_entity === 1 && count.emote === 2 && count.mob_effect === 3 && count.death_info === 1 && count.respawn === 2 &&
      count.take_item_entity === 1 && count.remove_entity === 2 && got('move_player').length === 61 && !!mpReset &&
      coList?.success_count === 1 && coList.output[0].message_id === 'commands.players.list' && coBad?.success_count === 0 &&
      lines.some(l => l.name === '__decode_error' && l.packet_id === 0x4d) && lines.some(l => l.name === 'command_request') && code === 0
    return { ok, spawned: r.spawned, missing_steps: missingSteps, step_errors: stepErrors, player_list_adds: adds, removes, text_types: textTypes, texts: texts.length, control_chars_ok: ctrlOk, nametag, counts: Object.fromEntries(['add_player', 'add_entity', 'add_item_entity', 'move_player', 'move_entity_delta', 'move_entity', 'emote', 'mob_effect', 'entity_event', 'update_attributes', 'death_info', 'respawn', 'take_item_entity', 'remove_entity', 'command_output', 'text'].map(n => [n, count[n] || 0])), command_outputs: co.map(c => ({ id: c.origin.request_id, success_count: c.success_count, output: c.output })), reset: mpReset?.position, death_info: got('death_info')[0], errors: r.errors }
  },
  async fuzz (bedrock) {
    // living + mixed + request mode; 300 random / truncated client packets (server-bound ids incl. subchunk_request,
    // command_request, respawn, player_action, text) must neither crash the peer nor end the session
    const peer = await startPeer('living', ['--world', 'mixed', '--chunks', 'request'])
    let seed = 12345
    const rnd = (n) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n }
    const ids = [0xaf, 0x4d, 0x2d, 0x24, 0x09, 0x90, 0x45, 0x1e, 0x21, 0x8a, 0x13, 0x71, 0x81, 0xc1, 0x3ff, 0x00]
    const r = await connect(bedrock, peer.port, {
      waitMs: 4500,
      onSpawn: (c) => setTimeout(() => {
        for (let i = 0; i < 300; i++) {
          const id = ids[rnd(ids.length)]
          const body = Buffer.alloc(rnd(40))
          for (let k = 0; k < body.length; k++) body[k] = rnd(256)
          const head = []
          let v = id
          do { head.push((v & 0x7f) | (v > 0x7f ? 0x80 : 0)); v >>>= 7 } while (v)
          c.sendBuffer(Buffer.concat([Buffer.from(head), body]), true)
        }
        // huge but valid request: every sub-chunk of a 5x5 area plus out-of-range ones, far-away origin
        const req = []
        for (let x = -2; x <= 2; x++) for (let z = -2; z <= 2; z++) for (let y = -6; y <= 21; y++) req.push({ x, y, z })
        c.write('subchunk_request', { dimension: 0, requests: req, origin: { x: 2000000, y: 0, z: -2000000 } })
        c.write('command_request', { command: '/list', origin: { type: 'player', uuid: '11111111-2222-3333-4444-555555555555', request_id: 'after-fuzz', player_entity_id: 0n }, internal: false, version: 'latest' })
      }, 300)
    })
    await sleep(300)
    const alive = peer.proc.exitCode === null
    const lines = peer.readLog()
    const code = await peer.stop()
    const after = r.packets.find(p => p.name === 'command_output' && p.params.origin.request_id === 'after-fuzz')
    const big = r.packets.filter(p => p.name === 'subchunk').map(p => p.params.entries.length)
    const ok = r.spawned && alive && !!after && big.includes(700) && !r.kick && code === 0
    return { ok, spawned: r.spawned, peer_alive: alive, answered_after_fuzz: !!after, big_subchunk_entries: big, decode_errors: lines.filter(l => l.name === '__decode_error').length, errors: lines.filter(l => l.name === '__error').length, kicked: r.kick, exit: code }
  },
  async teleport (bedrock) {
    const peer = await startPeer('teleport')
    const r = await connect(bedrock, peer.port, { waitMs: 3000 })
    await peer.stop()
    const mp = r.packets.find(p => p.name === 'move_player')
    const ok = r.spawned && mp && mp.params.mode === 'teleport' && Math.abs(mp.params.position.x - 10.5) < 1e-4 &&
      Math.abs(mp.params.position.y + 58.38) < 1e-4 && Math.abs(mp.params.position.z - 3.5) < 1e-4
    return { ok, spawned: r.spawned, move_player: mp?.params }
  }
}

async function runInProcess (name) {
  const bedrock = require('bedrock-protocol')
  let res
  try { res = await CHECKS[name](bedrock) } catch (e) { res = { ok: false, error: e.stack || String(e) } }
  require('fs').writeSync(1, JSON.stringify({ scenario: name, ...res }, (k, v) => typeof v === 'bigint' ? v.toString() : v) + '\n')
  return res.ok
}

// Each scenario runs in its own process: raknet-native's client occasionally aborts V8 ("Check failed:
// kInvalidTaskId != id") after several clients were created and closed in one process.
function runInChild (name) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [__filename, '--one', name], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', d => { out += d })
    child.on('exit', (code, sig) => {
      const line = out.split('\n').find(l => l.startsWith('{'))
      if (line) require('fs').writeSync(1, line + '\n')
      else require('fs').writeSync(1, JSON.stringify({ scenario: name, ok: false, error: `selftest child exited ${code ?? sig} without a result` }) + '\n')
      resolve(code === 0 && !!line && JSON.parse(line).ok === true)
    })
  })
}

async function main () {
  const argv = process.argv.slice(2)
  if (argv[0] === '--one') process.exit(await runInProcess(argv[1]) ? 0 : 1)
  const which = argv.length ? argv : Object.keys(CHECKS)
  let failed = 0
  for (const name of which) {
    if (!CHECKS[name]) { process.stderr.write(`unknown scenario ${name}\n`); process.exit(2) }
    if (!await runInChild(name)) failed++
  }
  process.exit(failed ? 1 : 0)
}

main()
