// clawcraft test peer: worlds (flat / mixed map from maps/*.json), network sub-chunk encoding
// for both LevelChunk modes (full payload, or request mode answered with SubChunk packets).
'use strict'

const fs = require('fs')
const path = require('path')

const OVERWORLD_MIN_SUBCHUNK = -4 // y -64
const OVERWORLD_SUBCHUNKS = 24 // y -64..319
const PLAINS_BIOME_ID = 1

function writeVarUint (out, v) {
  v >>>= 0
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80)
    v >>>= 7
  }
  out.push(v)
}
function writeVarInt (out, v) { // zigzag32
  v |= 0
  writeVarUint(out, ((v << 1) ^ (v >> 31)) >>> 0)
}

// Block network id hash (StartGame block_network_ids_are_hashes = true): FNV-1a 32 over the little-endian NBT of
// {name: "minecraft:x", states: {sorted keys}} (check value: air -> 0xDBF44120).
function blockStateHash (state) {
  const parts = []
  const str = (v) => { const b = Buffer.from(v, 'utf8'); const l = Buffer.alloc(2); l.writeUInt16LE(b.length); parts.push(l, b) }
  const tag = (type, key) => { parts.push(Buffer.from([type])); str(key) }
  parts.push(Buffer.from([0x0a, 0, 0]))
  tag(0x08, 'name'); str(state.name.startsWith('minecraft:') ? state.name : 'minecraft:' + state.name)
  tag(0x0a, 'states')
  for (const key of Object.keys(state.states).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))) {
    const { type, value } = state.states[key]
    if (type === 'string') { tag(0x08, key); str(String(value)) } else if (type === 'byte') { tag(0x01, key); parts.push(Buffer.from([Number(value) & 0xff])) } else if (type === 'short') { tag(0x02, key); const b = Buffer.alloc(2); b.writeInt16LE(Number(value)); parts.push(b) } else if (type === 'int') { tag(0x03, key); const b = Buffer.alloc(4); b.writeInt32LE(Number(value)); parts.push(b) } else throw new Error(`unsupported state type ${type}`)
  }
  parts.push(Buffer.from([0, 0]))
  let h = 0x811c9dc5
  for (const byte of Buffer.concat(parts)) h = Math.imul(h ^ byte, 0x01000193) >>> 0
  return h | 0 // signed 32-bit, as written in sub-chunk palettes (vari32)
}

// Valid network storage widths; indices never straddle 32-bit words.
const WIDTHS = [1, 2, 3, 4, 5, 6, 8, 16]
function bitsFor (paletteSize) {
  if (paletteSize <= 1) return 0
  for (const b of WIDTHS) if ((1 << b) >= paletteSize) return b
  throw new Error('palette too large')
}

// A storage: Uint16Array(4096) of palette indices + palette (array of network ids). Index i = (x << 8) | (z << 4) | y.
function encodeStorage (out, indices, palette) {
  const bits = bitsFor(palette.length)
  out.push((bits << 1) | 1) // runtime flag
  if (bits === 0) {
    writeVarInt(out, palette[0])
    return bits
  }
  const perWord = Math.floor(32 / bits)
  const wordCount = Math.ceil(4096 / perWord) // bits 3/5/6: padded, the "+1 word" rounding
  const words = new Uint32Array(wordCount)
  for (let i = 0; i < 4096; i++) words[Math.floor(i / perWord)] |= indices[i] << ((i % perWord) * bits)
  const wb = Buffer.alloc(wordCount * 4)
  for (let i = 0; i < wordCount; i++) wb.writeUInt32LE(words[i] >>> 0, i * 4)
  for (const b of wb) out.push(b)
  writeVarInt(out, palette.length)
  for (const id of palette) writeVarInt(out, id)
  return bits
}

// block indices ordered y-major (bottom layer first), then x, then z: the order palette entries are assigned in
const APPEARANCE_ORDER = [...Array(16).keys()].flatMap(y => [...Array(256).keys()].map(xz => ((xz >> 4) << 8) | ((xz & 15) << 4) | y))

class World {
  // map: null = flat; otherwise the parsed maps/<name>.json
  constructor (mcData, { hashes = false, map = null, name = 'flat' } = {}) {
    this.mcData = mcData
    this.hashes = hashes
    this.name = name
    this.map = map
    const states = mcData.blockStates
    this.states = states
    this._stateCache = new Map()
    this.ids = { air: this.stateId('air', {}), bedrock: this.stateId('bedrock', { infiniburn_bit: 0 }), dirt: this.stateId('dirt', {}), grass_block: this.stateId('grass_block', {}) }
    // base column by absolute y (flat layers)
    this.base = new Map([[-64, this.ids.bedrock], [-63, this.ids.dirt], [-62, this.ids.dirt], [-61, this.ids.grass_block]])
    if (map && map.base_layers) {
      this.base = new Map()
      for (const l of map.base_layers) this.base.set(l.y, this.stateId(l.name, l.states || {}))
    }
    this.blocks = new Map() // "x,y,z" -> { l0: id, l1: id|undefined }
    this.touched = new Set() // sub-chunks "cx,sy,cz" holding map blocks; all others depend on sy only
    for (const b of (map?.blocks || [])) {
      const key = `${b.x},${b.y},${b.z}`
      if (this.blocks.has(key)) throw new Error(`map ${name}: duplicate block at ${key}`)
      this.blocks.set(key, { l0: this.stateId(b.name, b.states || {}), l1: b.layer1 ? this.stateId(b.layer1.name, b.layer1.states || {}) : undefined })
      this.touched.add(`${b.x >> 4},${b.y >> 4},${b.z >> 4}`)
    }
    this.fills = [] // boxes { x0..x1, y0..y1, z0..z1, l0 } (inclusive), checked after single blocks
    for (const f of (map?.fills || [])) {
      const [x0, x1] = [Math.min(f.from.x, f.to.x), Math.max(f.from.x, f.to.x)]
      const [y0, y1] = [Math.min(f.from.y, f.to.y), Math.max(f.from.y, f.to.y)]
      const [z0, z1] = [Math.min(f.from.z, f.to.z), Math.max(f.from.z, f.to.z)]
      this.fills.push({ x0, x1, y0, y1, z0, z1, l0: this.stateId(f.name, f.states || {}) })
      for (let cx = x0 >> 4; cx <= x1 >> 4; cx++) for (let sy = y0 >> 4; sy <= y1 >> 4; sy++) for (let cz = z0 >> 4; cz <= z1 >> 4; cz++) this.touched.add(`${cx},${sy},${cz}`)
    }
    this._subCache = new Map()
    this._columnCache = new Map()
    this.bitsUsed = {} // "cx,sy,cz" -> [bits per storage], filled as sub-chunks get encoded (diagnostics/selftest)
  }

  // Network id of a block state given by name + plain state values (numbers/strings); all state keys must match.
  stateId (name, states) {
    const key = name + JSON.stringify(Object.entries(states).sort())
    if (this._stateCache.has(key)) return this._stateCache.get(key)
    const bare = name.replace(/^minecraft:/, '')
    let idx = this.states.findIndex(s => s.name === bare && Object.keys(s.states).length === Object.keys(states).length &&
      Object.entries(s.states).every(([k, v]) => states[k] !== undefined && String(states[k]) === String(v.value)))
    if (idx < 0) {
      // Maps are written for one version; another version may add or drop state keys (1.26.60
      // stairs gained `minecraft:corner`). Take the first state (the default values) agreeing
      // with every key this version has.
      idx = this.states.findIndex(s => s.name === bare &&
        Object.entries(s.states).every(([k, v]) => states[k] === undefined || String(states[k]) === String(v.value)))
    }
    if (idx < 0) throw new Error(`block state ${name} ${JSON.stringify(states)} not in minecraft-data blockStates`)
    const id = this.hashes ? blockStateHash(this.states[idx]) : idx
    this._stateCache.set(key, id)
    return id
  }

  // id as an unsigned varint (UpdateBlock / UpdateSubChunkBlocks): hashes are written as u32
  wireId (id) { return id >>> 0 }

  blockAt (x, y, z) { // { l0, l1 } network ids
    const b = this.blocks.get(`${x},${y},${z}`)
    if (b) return b
    for (const f of this.fills) if (x >= f.x0 && x <= f.x1 && y >= f.y0 && y <= f.y1 && z >= f.z0 && z <= f.z1) return { l0: f.l0, l1: undefined }
    return { l0: this.base.has(y) ? this.base.get(y) : this.ids.air, l1: undefined }
  }

  // Serialized sub-chunk (version 9) or null when it is all air (single layer).
  subChunk (cx, sy, cz) {
    const key = this.touched.has(`${cx},${sy},${cz}`) ? `${cx},${sy},${cz}` : `base,${sy}`
    if (this._subCache.has(key)) return this._subCache.get(key)
    const raw = [new Int32Array(4096), new Int32Array(4096)]
    const air = this.ids.air
    let hasL1 = false
    for (let y = 0; y < 16; y++) {
      for (let x = 0; x < 16; x++) {
        for (let z = 0; z < 16; z++) {
          const b = this.blockAt(cx * 16 + x, sy * 16 + y, cz * 16 + z)
          const i = (x << 8) | (z << 4) | y
          raw[0][i] = b.l0
          raw[1][i] = b.l1 === undefined ? air : b.l1
          if (b.l1 !== undefined && b.l1 !== air) hasL1 = true
        }
      }
    }
    // palette = the states used: air first if present, then in order of appearance (index order), so the flat
    // bottom sub-chunk keeps [air, bedrock, dirt, grass_block]; a sub-chunk of one state gets a 0-bit storage
    const storage = (vals) => {
      const palette = []
      if (vals.includes(air)) palette.push(air)
      for (const i of APPEARANCE_ORDER) if (!palette.includes(vals[i])) palette.push(vals[i])
      const idx = new Uint16Array(4096)
      for (let i = 0; i < 4096; i++) idx[i] = palette.indexOf(vals[i])
      return { idx, palette }
    }
    const s0 = storage(raw[0])
    let buf = null
    if (!(s0.palette.length === 1 && s0.palette[0] === air) || hasL1) {
      const out = [9, hasL1 ? 2 : 1, sy & 0xff]
      const bits = [encodeStorage(out, s0.idx, s0.palette)]
      if (hasL1) { const s1 = storage(raw[1]); bits.push(encodeStorage(out, s1.idx, s1.palette)) }
      this.bitsUsed[key] = bits
      buf = Buffer.from(out)
    }
    this._subCache.set(key, buf)
    return buf
  }

  airSubChunk (sy) {
    const out = [9, 1, sy & 0xff, (0 << 1) | 1] // 0 bits per block: no words, one palette entry, no count
    writeVarInt(out, this.ids.air)
    return Buffer.from(out)
  }

  // highest sub-chunk index (0 = y -64) that is not all air, -1 if none
  highestFilled (cx, cz) {
    let h = -1
    for (let i = 0; i < OVERWORLD_SUBCHUNKS; i++) if (this.subChunk(cx, OVERWORLD_MIN_SUBCHUNK + i, cz)) h = i
    return h
  }

  biomesAndBorder () {
    const out = []
    for (let i = 0; i < OVERWORLD_SUBCHUNKS; i++) { // one biome storage per sub-chunk, all plains, 0-bit storage
      out.push((0 << 1) | 1)
      writeVarInt(out, PLAINS_BIOME_ID)
    }
    out.push(0) // border blocks
    return Buffer.from(out)
  }

  // Full-mode LevelChunk payload: 24 sub-chunks | 24 biomes | border 0 (no block entities)
  fullPayload (cx, cz) {
    const key = `${cx},${cz}`
    if (this._columnCache.has(key)) return this._columnCache.get(key)
    const parts = []
    for (let i = 0; i < OVERWORLD_SUBCHUNKS; i++) {
      const sy = OVERWORLD_MIN_SUBCHUNK + i
      parts.push(this.subChunk(cx, sy, cz) || this.airSubChunk(sy))
    }
    parts.push(this.biomesAndBorder())
    const buf = Buffer.concat(parts)
    this._columnCache.set(key, buf)
    return buf
  }

  // Request-mode LevelChunk payload: biomes | border 0
  requestPayload () {
    if (!this._reqPayload) this._reqPayload = this.biomesAndBorder()
    return this._reqPayload
  }

  // One SubChunk entry for absolute sub-chunk (cx, sy, cz)
  subChunkEntry (dx, dy, dz, cx, sy, cz, dimension) {
    const e = { dx, dy, dz, result: 'success', payload: undefined, heightmap_type: 'no_data', heightmap: undefined, render_heightmap_type: 'no_data', render_heightmap: undefined, blob_id: undefined }
    if (dimension !== 0) { e.result = 'invalid_dimension'; return e }
    if (sy < OVERWORLD_MIN_SUBCHUNK || sy >= OVERWORLD_MIN_SUBCHUNK + OVERWORLD_SUBCHUNKS) { e.result = 'y_index_out_of_bounds'; return e }
    const sub = this.subChunk(cx, sy, cz)
    if (!sub) { e.result = 'success_all_air'; return e }
    e.payload = sub // serialized sub-chunk + no block entities (nothing follows)
    return e
  }
}

function loadMap (name) {
  const file = path.join(__dirname, 'maps', `${name}.json`)
  return JSON.parse(fs.readFileSync(file, 'utf8'))
}

module.exports = { World, loadMap, blockStateHash, writeVarInt, writeVarUint, OVERWORLD_MIN_SUBCHUNK, OVERWORLD_SUBCHUNKS, PLAINS_BIOME_ID }
