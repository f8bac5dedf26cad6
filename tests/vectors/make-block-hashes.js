#!/usr/bin/env node
// Generates tests/vectors/block-hashes-<version>.json: Bedrock block network-id hashes computed
// independently of the Rust code, so `clawcraft-world`'s `network_hash` is checked against a
// second implementation of the recipe (protocol.md §6.5):
//   FNV-1a-32 over the little-endian NBT of {name: "minecraft:x", states: {sorted keys}}.
// The NBT bytes come from prismarine-nbt's own little-endian writer; only the FNV loop is here.
//
// Usage: NODE_PATH=<dir containing minecraft-data + prismarine-nbt> node make-block-hashes.js [version]
// (the test peer's tests/peer/node_modules has both). States are read straight from
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

const out = []
states.forEach((s, i) => {
  if (i % 80 !== 0 && !PICKED.has(s.name)) return
  const name = `minecraft:${s.name}`
  out.push({ name, states: s.states, hash: hashState(name, s.states) })
})

const air = out.find(v => v.name === 'minecraft:air')
if (air.hash !== 0xdbf44120) throw new Error(`air hashed to ${air.hash.toString(16)}, expected dbf44120`)
const file = path.join(__dirname, `block-hashes-${version}.json`)
fs.writeFileSync(file, '[\n' + out.map(v => JSON.stringify(v)).join(',\n') + '\n]\n')
console.log(`${out.length} block hash vectors -> ${path.relative(process.cwd(), file)}`)
