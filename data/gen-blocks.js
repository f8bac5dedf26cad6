#!/usr/bin/env node
// Generates data/bedrock/<game version>/blocks.json from minecraft-data's Bedrock block data
// (blockStates.json, blocks.json, blockCollisionShapes.json, items.json of the data directory that
// minecraft-data's dataPaths.json assigns to the game version; 1.26.45 uses bedrock/1.26.40).
//
// Usage: NODE_PATH=<dir containing minecraft-data> node data/gen-blocks.js <game version>...
// Called by data/refresh.sh for every version in data/versions.txt.
//
// Output format (read by plugins/world/src/block/data.rs), one block per line for readable diffs:
//   { "format": 1, "game_version": "1.26.45", "source": "minecraft-data@X bedrock/1.26.40",
//     "blocks": [ { "name": "minecraft:stone", "hardness": 1.5, "shape": "full", "liquid": false,
//                   "tools": ["pickaxe"], "tier": "wooden", "preferred": ["pickaxe"],
//                   "states": [ { "key": value, ... }, ... ] }, ... ] }
// - Blocks appear in order of their first state and each block's states are contiguous in
//   minecraft-data's palette order (checked below), so concatenating every block's `states` gives
//   the palette: the position of a state in that concatenation is its palette index.
// - State values keep their NBT type through their JSON type: string -> string, byte -> boolean
//   (Bedrock byte states are all 0/1 flags; checked below), int -> number.
// - hardness: destroy time, -1 = unbreakable.
// - tools: tool kinds that *must* be used for the block to drop (from harvestTools); [] = any.
//   tier: lowest tool tier among those items (wooden < stone < iron < diamond < netherite; golden
//   counts as wooden, copper as stone, as in Bedrock's harvest levels); null when tools is [].
// - preferred: tool kinds that mine the block faster (from `material`), [] when none.
// - shape: the navigator's shape class, derived by the rules in `shapeClass` below.
// - liquid: the block is a fluid (water, lava and their flowing forms, bubble columns); lava is
//   still classed "hazard" so the navigator avoids it.
'use strict'
const fs = require('fs')
const path = require('path')

const mcDataRoot = path.join(path.dirname(require.resolve('minecraft-data/package.json')), 'minecraft-data', 'data')
const mcDataVersion = require('minecraft-data/package.json').version

// ---- shape classes ------------------------------------------------------------------------------
// Rules, first match wins. Name rules come first because collision boxes alone cannot tell a door
// from a wall segment or a harmful block from a harmless one.
const AIR = new Set(['air'])
const WATER = new Set(['water', 'flowing_water', 'bubble_column'])
const LAVA = new Set(['lava', 'flowing_lava'])
// Blocks that hurt, trap or slow a walker: never path through or onto them.
const HAZARD = new Set([
  'lava', 'flowing_lava', 'fire', 'soul_fire', 'cactus', 'magma', 'sweet_berry_bush', 'wither_rose',
  'campfire', 'soul_campfire', 'powder_snow', 'pointed_dripstone', 'web',
  // Portals teleport the bot elsewhere: as bad as damage for a path.
  'portal', 'end_portal', 'end_gateway'
])
// Blocks whose collision data is empty although they do block movement (piston heads and blocks
// being pushed are solid in game; minecraft-data lists no boxes for them).
const SOLID_WITHOUT_BOXES = new Set(['piston_arm_collision', 'sticky_piston_arm_collision', 'moving_block'])
const CLIMBABLE = new Set([
  'ladder', 'vine', 'scaffolding', 'weeping_vines', 'twisting_vines', 'cave_vines',
  'cave_vines_body_with_berries', 'cave_vines_head_with_berries'
])

function shapeClass (name, boxesPerState) {
  if (AIR.has(name)) return 'air'
  if (HAZARD.has(name)) return 'hazard'
  if (WATER.has(name)) return 'liquid'
  if (CLIMBABLE.has(name)) return 'ladder_vine_scaffolding'
  if (name.endsWith('trapdoor')) return 'trapdoor'
  if (name.endsWith('_door')) return 'door'
  if (name.endsWith('_stairs')) return 'stairs'
  // "oak_double_slab", "double_cut_copper_slab" are full blocks and fall through to the box rules.
  if (name.includes('_slab') && !name.includes('double')) return 'slab'
  // Fences, fence gates, walls and border blocks: a collision box taller than one block means the
  // bot cannot jump over it.
  if (/_fence$|fence_gate$|_wall$/.test(name) && !/_wall_/.test(name)) return 'fence_wall'
  if (boxesPerState.some(boxes => boxes.some(b => b[4] > 1.0))) return 'fence_wall'
  if (SOLID_WITHOUT_BOXES.has(name)) return 'other_partial'
  // No collision in any state: flowers, grass, torches, rails, buttons, signs, crops ...
  if (boxesPerState.every(boxes => boxes.length === 0)) return 'passable'
  // Exactly the unit cube in every state.
  const isUnit = boxes => boxes.length === 1 && boxes[0].join(',') === '0,0,0,1,1,1'
  if (boxesPerState.every(isUnit)) return 'full'
  return 'other_partial'
}

// ---- tools ----------------------------------------------------------------------------------------
const TOOL_KINDS = ['pickaxe', 'axe', 'shovel', 'hoe', 'sword', 'shears']
const TIERS = ['wooden', 'stone', 'iron', 'diamond', 'netherite']
const TIER_OF = { wooden: 0, golden: 0, stone: 1, copper: 1, iron: 2, diamond: 3, netherite: 4 }

function toolOfItem (itemName) {
  if (itemName === 'shears') return { kind: 'shears', tier: null }
  const m = /^([a-z]+)_(pickaxe|axe|shovel|hoe|sword)$/.exec(itemName)
  if (!m || !(m[1] in TIER_OF)) throw new Error(`unexpected harvest tool item ${itemName}`)
  return { kind: m[2], tier: TIER_OF[m[1]] }
}

function requiredTools (block, itemNames) {
  const ids = Object.keys(block.harvestTools || {})
  if (ids.length === 0) return { tools: [], tier: null }
  const kinds = new Set()
  let tier = null
  for (const id of ids) {
    const t = toolOfItem(itemNames.get(Number(id)))
    kinds.add(t.kind)
    if (t.tier !== null) tier = tier === null ? t.tier : Math.min(tier, t.tier)
  }
  return { tools: TOOL_KINDS.filter(k => kinds.has(k)), tier: tier === null ? null : TIERS[tier] }
}

// `material` is a ';'-separated list such as "leaves;mineable/hoe" or "sword_efficient;mineable/axe".
function preferredTools (material) {
  const kinds = new Set()
  for (const part of material.split(';')) {
    const m = /^mineable\/(\w+)$/.exec(part)
    if (m) kinds.add(m[1])
    if (part.startsWith('sword_') || part === 'coweb' || part === 'vine_or_glow_lichen') kinds.add('sword')
    if (part === 'wool' || part === 'leaves' || part === 'coweb' || part === 'vine_or_glow_lichen') kinds.add('shears')
  }
  return TOOL_KINDS.filter(k => kinds.has(k))
}

// ---- main -------------------------------------------------------------------------------------------
function stateJson (states) {
  const out = {}
  for (const key of Object.keys(states).sort()) {
    const { type, value } = states[key]
    if (type === 'string') out[key] = String(value)
    else if (type === 'int') out[key] = value
    else if (type === 'byte') {
      if (value !== 0 && value !== 1) throw new Error(`byte state ${key}=${value} is not a flag`)
      out[key] = value === 1
    } else throw new Error(`unsupported state type ${type}`)
  }
  return out
}

function generate (gameVersion) {
  const dataPaths = JSON.parse(fs.readFileSync(path.join(mcDataRoot, 'dataPaths.json'), 'utf8'))
  const paths = dataPaths.bedrock[gameVersion]
  if (!paths) throw new Error(`minecraft-data@${mcDataVersion} does not know bedrock ${gameVersion}`)
  const read = (key, file) => JSON.parse(fs.readFileSync(path.join(mcDataRoot, paths[key], file), 'utf8'))
  const states = read('blockStates', 'blockStates.json')
  const blocks = read('blocks', 'blocks.json')
  const collision = read('blockCollisionShapes', 'blockCollisionShapes.json')
  const items = read('items', 'items.json')
  const itemNames = new Map(items.map(i => [i.id, i.name]))

  blocks.sort((a, b) => a.minStateId - b.minStateId)
  let next = 0
  const lines = []
  for (const b of blocks) {
    if (b.minStateId !== next) throw new Error(`state ${next} belongs to no block`)
    const own = states.slice(b.minStateId, b.maxStateId + 1)
    if (own.some(s => s.name !== b.name)) throw new Error(`states of ${b.name} are not contiguous`)
    const shapeIds = collision.blocks[b.name]
    if (!shapeIds) throw new Error(`no collision shape for ${b.name}`)
    const boxesPerState = shapeIds.map(id => collision.shapes[String(id)])
    const { tools, tier } = requiredTools(b, itemNames)
    const entry = {
      name: `minecraft:${b.name}`,
      hardness: b.hardness,
      shape: shapeClass(b.name, boxesPerState),
      liquid: WATER.has(b.name) || LAVA.has(b.name),
      tools,
      tier,
      preferred: preferredTools(b.material),
      states: own.map(s => stateJson(s.states))
    }
    lines.push(JSON.stringify(entry))
    next = b.maxStateId + 1
  }
  if (next !== states.length) throw new Error(`${states.length - next} trailing states belong to no block`)

  const source = `minecraft-data@${mcDataVersion} ${paths.blockStates}`
  const header = `{"format":1,"game_version":${JSON.stringify(gameVersion)},"source":${JSON.stringify(source)},"blocks":[\n`
  const out = path.join(__dirname, 'bedrock', gameVersion, 'blocks.json')
  fs.mkdirSync(path.dirname(out), { recursive: true })
  fs.writeFileSync(out, header + lines.join(',\n') + '\n]}\n')
  console.log(`bedrock ${gameVersion}: ${blocks.length} blocks, ${states.length} states -> ${path.relative(process.cwd(), out)}`)
}

const versions = process.argv.slice(2)
if (versions.length === 0) {
  console.error('usage: node data/gen-blocks.js <game version>...')
  process.exit(2)
}
versions.forEach(generate)
