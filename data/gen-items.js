#!/usr/bin/env node
// Generates data/bedrock/<game version>/items.json from minecraft-data's Bedrock item data (items.json,
// materials.json and blocks.json of the data directory that minecraft-data's dataPaths.json assigns to the game
// version; 1.26.45 uses bedrock/1.26.40) and its Bedrock enchantment list.
//
// Usage: NODE_PATH=<dir containing minecraft-data> node data/gen-items.js <game version>...
// Called by data/refresh.sh for every version in data/versions.txt.
//
// Output format (read by plugins/inventory/src/data.rs), one item per line for readable diffs:
//   { "format": 1, "game_version": "1.26.45", "source": "minecraft-data@X bedrock/1.26.40",
//     "items": [ { "name": "minecraft:bread", "stack": 64, "durability": 0, "food": { "nutrition": 5,
//                  "saturation": 0.6 }, "use_ticks": 32, "speeds": { "mineable/pickaxe": 2 } }, ... ],
//     "block_materials": { "minecraft:stone": "mineable/pickaxe", ... },
//     "enchantments": { "efficiency": 15, ... } }
// - Item names and properties only: network ids always come from the server (ItemRegistry).
// - durability: maxDurability (0 = not damageable). food: nutrition and saturation_modifier of the item's
//   minecraft:food component (always: edible when not hungry). use_ticks: minecraft:use_duration (ticks), else the item_properties use_duration,
//   else 32 for foods; drinks without components (potion, milk_bucket) get 32.
// - speeds: the item's mining speed per block material (materials.json lists, for each material string, the
//   speed of every item that mines it faster); absent when the item speeds nothing up.
// - block_materials: the material string of every block whose material is not "default" (the key into speeds).
// - enchantments: Bedrock enchantment ids by name (item NBT `ench` lists carry the ids).
'use strict'
const fs = require('fs')
const path = require('path')

const mcDataRoot = path.join(path.dirname(require.resolve('minecraft-data/package.json')), 'minecraft-data', 'data')
const mcDataVersion = require('minecraft-data/package.json').version

// Drinks: used like food but carry no minecraft:food component in minecraft-data.
const DRINKS = { potion: 32, milk_bucket: 32 }

function components (item) {
  const c = item.nbt && item.nbt.value && item.nbt.value.components
  return (c && c.value) || {}
}

function num (tag) {
  return tag && typeof tag.value === 'number' ? tag.value : null
}

function round (v, digits = 4) {
  const f = 10 ** digits
  return Math.round(v * f) / f
}

function itemLine (item, speedsOf) {
  const c = components(item)
  const out = { name: 'minecraft:' + item.name, stack: item.stackSize || 64, durability: item.maxDurability || 0 }
  const food = c['minecraft:food'] && c['minecraft:food'].value
  if (food) {
    out.food = { nutrition: num(food.nutrition) || 0, saturation: round(num(food.saturation_modifier) || 0) }
    if (num(food.can_always_eat)) out.food.always = true
  }
  const props = c.item_properties && c.item_properties.value
  const useTicks = num(c['minecraft:use_duration']) ?? (props && num(props.use_duration))
  if (useTicks !== null && useTicks !== undefined && (food || useTicks > 0)) out.use_ticks = useTicks
  else if (food) out.use_ticks = 32
  if (DRINKS[item.name]) out.use_ticks = DRINKS[item.name]
  const speeds = speedsOf.get(item.id)
  if (speeds && Object.keys(speeds).length) out.speeds = speeds
  return out
}

function generate (gameVersion) {
  const dataPaths = JSON.parse(fs.readFileSync(path.join(mcDataRoot, 'dataPaths.json'), 'utf8'))
  const paths = dataPaths.bedrock[gameVersion]
  if (!paths) throw new Error(`minecraft-data@${mcDataVersion} does not know bedrock ${gameVersion}`)
  const read = (key, file) => JSON.parse(fs.readFileSync(path.join(mcDataRoot, paths[key], file), 'utf8'))
  const items = read('items', 'items.json')
  const materials = read('materials', 'materials.json')
  const blocks = read('blocks', 'blocks.json')
  const enchantments = read('enchantments', 'enchantments.json')

  // materials.json: material -> { item id: speed }; invert to item id -> { material: speed }
  const speedsOf = new Map()
  for (const material of Object.keys(materials).sort()) {
    for (const [id, speed] of Object.entries(materials[material])) {
      const key = Number(id)
      if (!speedsOf.has(key)) speedsOf.set(key, {})
      speedsOf.get(key)[material] = speed
    }
  }
  const itemLines = [...items].sort((a, b) => a.id - b.id).map(i => JSON.stringify(itemLine(i, speedsOf)))
  const blockMaterials = {}
  for (const b of [...blocks].sort((a, b) => a.name.localeCompare(b.name))) {
    if (b.material && b.material !== 'default') blockMaterials['minecraft:' + b.name] = b.material
  }
  const ench = {}
  for (const e of [...enchantments].sort((a, b) => a.id - b.id)) ench[e.name] = e.id

  const header = { format: 1, game_version: gameVersion, source: `minecraft-data@${mcDataVersion} ${paths.items}` }
  const text = JSON.stringify(header).slice(0, -1) +
    ',"items":[\n' + itemLines.join(',\n') + '\n],\n"block_materials":' + JSON.stringify(blockMaterials).replace(/","/g, '",\n"') +
    ',\n"enchantments":' + JSON.stringify(ench) + '}\n'
  JSON.parse(text) // sanity
  const out = path.join(__dirname, 'bedrock', gameVersion, 'items.json')
  fs.writeFileSync(out, text)
  process.stderr.write(`bedrock ${gameVersion}: ${itemLines.length} items, ${Object.keys(blockMaterials).length} block materials -> ${out}\n`)
}

const versions = process.argv.slice(2)
if (!versions.length) {
  process.stderr.write('usage: node gen-items.js <game version>...\n')
  process.exit(2)
}
for (const v of versions) generate(v)
