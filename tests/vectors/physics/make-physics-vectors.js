#!/usr/bin/env node
// Derives clawcraft's physics replay vectors (tests/vectors/physics/{world,scenarios}.txt) from
// real-client recordings of Bedrock player movement. See SOURCE.md beside this file for where the
// recordings come from and how to get them.
//
// Usage: node make-physics-vectors.js <recordings dir> [<more recordings dir>]
//   <recordings dir> holds one `<scenario>.test.js` per scenario (a `TICKS` array of per-tick
//   PlayerAuthInput diffs) and `world.json` (the blocks around every path, as fills). The optional
//   second folder holds more scenarios of the same recording world, each `<scenario>.test.js` with
//   its own `<scenario>.json` (`palette` and `blocks`: the blocks around its path); their blocks
//   join the world (a cell they disagree on is an error). The script reads only the recorded
//   facts: per-tick eye position, delta, rotation, move vector and input flags, and the blocks with
//   their recorded collision boxes. It evaluates nothing but the TICKS array literal of each file.
//
// Output formats (read by plugins/physics/tests/replay.rs):
//
// world.txt -- the recorded world, one line each:
//   block <id> <name> <shape>;<shape>... [drag_down] [depth=<n>] [weirdo=<d> upside=<0|1>]
//       a palette entry: the block name (without "minecraft:"), its recorded collision boxes in
//       block-local coordinates (`minX,minY,minZ,maxX,maxY,maxZ`; `-` when it has none), for
//       bubble columns whether the column drags down (its bottom is magma), for flowing water its
//       depth (1..7), for stairs their orientation (read from their boxes). The recording carries
//       no block states: these are derived (see below).
//   fill <x0> <y0> <z0> <x1> <y1> <z1> <id>
//       every cell of the inclusive cuboid holds block <id>; later fills win. Cells not covered
//       are air.
//
// scenarios.txt -- one block per scenario:
//   scenario <name> <category> <effects>
//       <effects>: `-`, or `name:level,...` (mob effects, level = amplifier + 1) it was recorded with.
//   <tick> [p=x,y,z] [d=x,y,z] [r=yaw,pitch,head_yaw] [m=x,z] [+flag]... [-flag]...
//       one line per recorded tick: the fields that changed since the previous tick (all of them
//       on the first tick, against zeros and no flags): p the eye position, d the delta, r the
//       rotation in degrees, m the move vector (x left, z forward), +/- an input flag (the
//       recording's camelCase name) set or cleared. Numbers are the shortest decimal that reads
//       back (as a double, then float32) to the recorded float32.
//   end
'use strict'
const fs = require('fs')
const path = require('path')

const src = process.argv[2]
const more = process.argv[3]
if (!src) {
  console.error('usage: node make-physics-vectors.js <recordings dir> [<more recordings dir>]')
  process.exit(2)
}
const out = __dirname
const f = Math.fround

// The shortest decimal string that reads back to the float32 `v`.
function num (v) {
  if (v === undefined || v === null) v = 0
  const x = f(v)
  if (x !== v) throw new Error(`${v} is not a float32`)
  if (Object.is(x, -0)) return '-0'
  for (let p = 1; p <= 9; p++) {
    const s = x.toPrecision(p)
    if (f(Number(s)) === x) return String(Number(s))
  }
  return String(x)
}

// ---- categories -------------------------------------------------------------------------------
// First matching rule wins; the categories the issue names come first.
const CATEGORIES = [
  ['elytra', /^elytra_/],
  ['flight', /^flight_/],
  ['effects', /^effect_/],
  ['powder_snow', /powder_snow/],
  ['slime', /slime/],
  ['honey', /honey/],
  ['cobweb', /cobweb/],
  ['berry_bush', /berry_bush/],
  ['lava', /lava/],
  ['scaffolding', /scaffolding/],
  ['ladders_vines', /^climb_(ladder|vine)|vine_/],
  ['water', /water|^swim_|bubble_column/],
  ['ice', /_ice$/],
  ['soul_sand', /soul_s/],
  ['stairs_slabs', /stairs|slab/],
  ['sneaking', /^sneak_/],
  ['collisions', /^wall_|fence/],
  ['jumping', /jump/],
  ['diagonals', /diagonal/],
  ['sprinting', /sprint/],
  ['falls', /^fall_|^air_|falling/],
  ['walking', /walk|strafe|forward|decelerate|edge|pit/]
]
function categoryOf (name) {
  for (const [cat, re] of CATEGORIES) if (re.test(name)) return cat
  throw new Error(`no category for ${name}`)
}

// Mob effects a scenario was recorded under (its name says which; the recording has no packet
// for them): effect name -> level (amplifier + 1).
const EFFECTS = {
  effect_levitation1: { levitation: 1 },
  effect_slow_falling_h20: { slow_falling: 1 },
  effect_jump_boost1: { jump_boost: 1 },
  effect_speed1_walk: { speed: 1 },
  effect_slowness1_walk: { slowness: 1 }
}

// ---- scenarios --------------------------------------------------------------------------------
function readTicks (file) {
  const text = fs.readFileSync(file, 'utf8')
  const start = text.indexOf('const TICKS = [')
  if (start < 0) return null
  const from = text.indexOf('[', start)
  const to = text.indexOf('\n]\n', from)
  // The array literal holds only numbers, booleans and nested object literals.
  const literal = text.slice(from, to + 2)
  if (/[`$]|function|=>|require|\(/.test(literal)) throw new Error(`${file}: unexpected TICKS content`)
  return (new Function(`return ${literal}`))()
}

const FIELDS = {
  p: s => [s.position.x, s.position.y, s.position.z],
  d: s => [s.delta.x, s.delta.y, s.delta.z],
  r: s => [s.yaw, s.pitch, s.headYaw],
  m: s => [s.moveVector.x, s.moveVector.z]
}

function merge (state, diff) {
  const next = { ...state, position: { ...state.position }, delta: { ...state.delta }, moveVector: { ...state.moveVector }, inputs: { ...state.inputs } }
  for (const [key, value] of Object.entries(diff)) {
    if (key === 't') continue
    if (value && typeof value === 'object') Object.assign(next[key], value)
    else next[key] = value
  }
  return next
}

const sources = [src, more].filter(Boolean)
const scenarioFiles = new Map()
for (const dir of sources) {
  for (const n of fs.readdirSync(dir).filter(n => n.endsWith('.test.js'))) {
    const name = n.slice(0, -8)
    if (scenarioFiles.has(name)) throw new Error(`${name} is in both folders`)
    scenarioFiles.set(name, path.join(dir, n))
  }
}
const names = [...scenarioFiles.keys()].sort()
const lines = ['# clawcraft physics replay vectors, generated by make-physics-vectors.js (see SOURCE.md)']
let scenarioCount = 0
let tickCount = 0
for (const name of names) {
  const ticks = readTicks(scenarioFiles.get(name))
  if (!ticks) continue
  const effects = EFFECTS[name] ? Object.entries(EFFECTS[name]).map(([effect, level]) => `${effect}:${level}`).join(',') : '-'
  lines.push(`scenario ${name} ${categoryOf(name)} ${effects}`)
  let state = { position: { x: 0, y: 0, z: 0 }, delta: { x: 0, y: 0, z: 0 }, moveVector: { x: 0, z: 0 }, yaw: 0, pitch: 0, headYaw: 0, inputs: {} }
  let prev = null
  for (const diff of ticks) {
    state = merge(state, diff)
    const parts = [String(diff.t)]
    for (const [key, get] of Object.entries(FIELDS)) {
      const now = get(state).map(num).join(',')
      const before = prev ? get(prev).map(num).join(',') : null
      if (now !== before) parts.push(`${key}=${now}`)
    }
    const flags = new Set([...Object.keys(state.inputs), ...Object.keys(prev ? prev.inputs : {})])
    for (const flag of [...flags].sort()) {
      const now = !!state.inputs[flag]
      const before = !!(prev && prev.inputs[flag])
      if (now !== before) parts.push(`${now ? '+' : '-'}${flag}`)
    }
    lines.push(parts.join(' '))
    prev = state
    tickCount++
  }
  lines.push('end')
  scenarioCount++
}
fs.writeFileSync(path.join(out, 'scenarios.txt'), lines.join('\n') + '\n')

// ---- world ------------------------------------------------------------------------------------
const world = JSON.parse(fs.readFileSync(path.join(src, 'world.json'), 'utf8'))
const palette = world.palette
const fills = world.fills
// The other folder's per-scenario blocks join the world, cell by cell, where the world has none.
if (more) {
  const known = new Map()
  for (const [x0, y0, z0, x1, y1, z1, p] of fills) {
    for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) for (let z = z0; z <= z1; z++) known.set(`${x},${y},${z}`, palette[p].name)
  }
  for (const n of fs.readdirSync(more).filter(n => n.endsWith('.json')).sort()) {
    const w = JSON.parse(fs.readFileSync(path.join(more, n), 'utf8'))
    for (const [x, y, z, i] of w.blocks) {
      const b = w.palette[i]
      const key = `${x},${y},${z}`
      if (known.has(key)) {
        if (known.get(key) !== b.name) throw new Error(`${n}: ${key} is ${b.name}, the world has ${known.get(key)}`)
        continue
      }
      let p = palette.findIndex(e => e.name === b.name && JSON.stringify(e.shapes) === JSON.stringify(b.shapes))
      if (p < 0) p = palette.push(b) - 1
      known.set(key, b.name)
      fills.push([x, y, z, x, y, z, p])
    }
  }
}
// Which cell holds which palette entry (later fills win), for the bubble column rule.
function blockAt (x, y, z) {
  for (let i = fills.length - 1; i >= 0; i--) {
    const [x0, y0, z0, x1, y1, z1, p] = fills[i]
    if (x >= x0 && x <= x1 && y >= y0 && y <= y1 && z >= z0 && z <= z1) return palette[p].name
  }
  return 'air'
}
// A bubble column drags down when the block under its lowest cell is magma.
function dragsDown (x, y, z) {
  while (blockAt(x, y - 1, z) === 'bubble_column') y--
  return blockAt(x, y - 1, z) === 'magma'
}
// The recorder read the world while its bubble columns were still growing (a column fills the
// water above its source one cell per game tick): some columns stop below the surface, with water
// cells above them. The recorded positions show the client pushed by the whole column, so each
// column is completed up through the water above it.
const grownFills = []
for (const [x0, y0, z0, x1, y1, z1, p] of fills) {
  if (palette[p].name !== 'bubble_column') continue
  for (let x = x0; x <= x1; x++) for (let z = z0; z <= z1; z++) {
    let y = y1 + 1
    while (blockAt(x, y, z) === 'water') {
      grownFills.push([x, y, z, x, y, z, p])
      y++
    }
  }
}
fills.push(...grownFills)

// The recording carries no liquid depths. Water the recorder's world spread out of a pool, the
// bottom layer of water running on past the pool's edge under open air, is flowing: each cell of
// such a run is one step shallower than its neighbour toward the pool (depth 1..7 away from the
// water under water). The recorded pushes of that water (0.014 a tick toward the run's end) show
// the client saw it flowing. Every other water cell is a source.
const cellName = new Map()
for (const [x0, y0, z0, x1, y1, z1, p] of fills) {
  for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) for (let z = z0; z <= z1; z++) cellName.set(`${x},${y},${z}`, palette[p].name)
}
const nameAt = (x, y, z) => cellName.get(`${x},${y},${z}`) || 'air'
const isWater = n => n === 'water' || n === 'bubble_column'
const waterDepth = new Map()
{
  const queue = []
  const dist = new Map()
  for (const [key, name] of cellName) {
    if (name !== 'water') continue
    const [x, y, z] = key.split(',').map(Number)
    if (isWater(nameAt(x, y + 1, z))) {
      // Water under water: the pool itself. A pool cell beside open-air water seeds the run.
      dist.set(key, 0)
      queue.push([x, y, z])
    }
  }
  while (queue.length) {
    const [x, y, z] = queue.shift()
    const d = dist.get(`${x},${y},${z}`)
    if (d >= 7) continue
    for (const [dx, dz] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const k = `${x + dx},${y},${z + dz}`
      if (dist.has(k) || nameAt(x + dx, y, z + dz) !== 'water' || isWater(nameAt(x + dx, y + 1, z + dz))) continue
      dist.set(k, d + 1)
      waterDepth.set(k, d + 1)
      queue.push([x + dx, y, z + dz])
    }
  }
}
const out2 = ['# clawcraft physics replay world, generated by make-physics-vectors.js (see SOURCE.md)']
const entries = []
const entryIds = new Map()
// Stairs: the orientation their recorded boxes show, as Bedrock's state names it (weirdo_direction
// 0 east, 1 west, 2 south, 3 north: the side of the tall half; upside_down_bit).
function stairsState (b) {
  if (!b.name.endsWith('_stairs')) return ''
  const [slab, tall] = b.shapes
  const upside = slab[1] === 0.5 ? 1 : 0
  const weirdo = tall[0] === 0.5 ? 0 : tall[3] === 0.5 ? 1 : tall[2] === 0.5 ? 2 : 3
  return ` weirdo=${weirdo} upside=${upside}`
}
function entryId (p, drag, depth = 0) {
  const key = `${p}|${drag}|${depth}`
  if (!entryIds.has(key)) {
    const b = palette[p]
    const boxes = b.boundingBox === 'empty' && b.name !== 'ladder' ? [] : (b.shapes || []).filter(s => s[0] < s[3] && s[1] < s[4] && s[2] < s[5])
    const shapes = boxes.length ? boxes.map(s => s.join(',')).join(';') : '-'
    entryIds.set(key, entries.length)
    entries.push(`block ${entries.length} ${b.name} ${shapes}${drag ? ' drag_down' : ''}${depth ? ` depth=${depth}` : ''}${stairsState(b)}`)
  }
  return entryIds.get(key)
}
const fillLines = []
for (const [x0, y0, z0, x1, y1, z1, p] of fills) {
  if (palette[p].name !== 'bubble_column') {
    fillLines.push(`fill ${x0} ${y0} ${z0} ${x1} ${y1} ${z1} ${entryId(p, false)}`)
    continue
  }
  // Bubble columns cell by cell, each with its direction.
  for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) for (let z = z0; z <= z1; z++) {
    fillLines.push(`fill ${x} ${y} ${z} ${x} ${y} ${z} ${entryId(p, dragsDown(x, y, z))}`)
  }
}
// Flowing water cells, one by one over the fills (later lines win).
for (const [key, depth] of [...waterDepth].sort()) {
  const [x, y, z] = key.split(',').map(Number)
  const p = palette.findIndex(b => b.name === 'water')
  fillLines.push(`fill ${x} ${y} ${z} ${x} ${y} ${z} ${entryId(p, false, depth)}`)
}
fs.writeFileSync(path.join(out, 'world.txt'), [...out2, ...entries, ...fillLines].join('\n') + '\n')
console.log(`${scenarioCount} scenarios, ${tickCount} ticks; world: ${entries.length} blocks, ${fillLines.length} fills`)
