#!/usr/bin/env node
// Generates tests/vectors/block-hashes-<version>.json: Bedrock block network-id hashes computed
// independently of the Rust code, so `clawcraft-world`'s `network_hash` is checked against a
// second implementation of the recipe:
//   FNV-1a-32 over the little-endian NBT of {name: "minecraft:x", states: {sorted keys}}.
// The NBT bytes come from prismarine-nbt's own little-endian writer; only the FNV loop is here.
// When prismarine-block (>= 1.23, `Block.getHash`) can be loaded too, every hash is also computed
// by it and the two must agree; the script says which implementations it used.
//
// Usage: NODE_PATH=<dirs containing minecraft-data + prismarine-nbt [+ prismarine-block]> \
//          node make-block-hashes.js [version]
// The test peer's tests/peer/node_modules has the first two; for the third:
//   (cd /tmp/pb && npm init -y && npm i --ignore-scripts prismarine-block)
//   NODE_PATH=/tmp/pb/node_modules:tests/peer/node_modules node tests/vectors/make-block-hashes.js States are read straight from
// minecraft-data's blockStates.json, not from our generated data/bedrock/<ver>/blocks.json.
// Output: [{ name, states: {key: {type, value}}, hash }], hash as an unsigned 32-bit number,
// in palette order: every 80th state plus every state of a hand-picked list of blocks.
'use strict'
const fs = require('fs')
const path = require('path')
const nbt = require('prismarine-nbt')

const version = process.argv[2] || '1.26.45'
const mcRoot = path.join(path.dirname(require.resolve('minecraft-data/package.json')), 'minecraft-data', 'data')
const dataPaths = JSON.parse(fs.readFileSync(path.join(mcRoot, 'dataPaths.json'), 'utf8'))
const statesFile = path.join(mcRoot, dataPaths.bedrock[version].blockStates, 'blockStates.json')
const states = JSON.parse(fs.readFileSync(statesFile, 'utf8'))

const PICKED = new Set([
  'air', 'stone', 'dirt', 'grass_block', 'water', 'flowing_water', 'lava', 'flowing_lava', 'bedrock',
  'obsidian', 'wooden_door', 'iron_door', 'oak_stairs', 'oak_slab', 'oak_fence', 'cobblestone_wall',
  'ladder', 'torch', 'cactus', 'short_grass', 'poppy', 'trapdoor', 'scaffolding', 'chest'
])

const NBT_TYPE = { string: 'string', byte: 'byte', int: 'int', short: 'short' }

function fnv1a32 (buf) {
  let h = 0x811c9dc5
  for (const b of buf) {
    h ^= b
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h >>> 0
}

function hashState (name, st) {
  const inner = {}
  for (const key of Object.keys(st).sort()) {
    inner[key] = { type: NBT_TYPE[st[key].type], value: st[key].value }
  }
  const root = {
    type: 'compound',
    name: '',
    value: {
      name: { type: 'string', value: name },
      states: { type: 'compound', value: inner }
    }
  }
  return fnv1a32(nbt.writeUncompressed(root, 'little'))
}

// prismarine-block's hash (optional second opinion); its result is a signed 32-bit number.
let prismarineHash = null
try {
  const Block = require('prismarine-block')(`bedrock_${version}`)
  if (typeof Block.getHash === 'function') prismarineHash = (name, st) => Block.getHash(name, st) >>> 0
} catch (e) {
  console.warn(`prismarine-block not usable (${e.message}); using the prismarine-nbt implementation only`)
}

const out = []
states.forEach((s, i) => {
  if (i % 80 !== 0 && !PICKED.has(s.name)) return
  const name = `minecraft:${s.name}`
  const hash = hashState(name, s.states)
  if (prismarineHash && prismarineHash(name, s.states) !== hash) {
    throw new Error(`prismarine-block disagrees on ${name} ${JSON.stringify(s.states)}`)
  }
  out.push({ name, states: s.states, hash })
})
console.log(`hashes from prismarine-nbt + FNV-1a${prismarineHash ? ', cross-checked with prismarine-block Block.getHash' : ''}`)

const air = out.find(v => v.name === 'minecraft:air')
if (air.hash !== 0xdbf44120) throw new Error(`air hashed to ${air.hash.toString(16)}, expected dbf44120`)
const file = path.join(__dirname, `block-hashes-${version}.json`)
fs.writeFileSync(file, '[\n' + out.map(v => JSON.stringify(v)).join(',\n') + '\n]\n')
console.log(`${out.length} block hash vectors -> ${path.relative(process.cwd(), file)}`)
