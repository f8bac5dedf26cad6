// clawcraft test peer: the `crafting` scenario — containers, crafting and smelting on the server side, on top of
// the survival scenario (survival.js). See README.md "Crafting scenario".
//
// Written from the Bedrock protocol definitions (minecraft-data) and minecraft-data's recipe data, independently of
// the bot: the recipes the peer sends as CraftingData and validates crafts against are minecraft-data's crafting
// recipes (names flattened the way 1.26 names items: `log` metadata 0 → `oak_log`, `planks` without metadata → the
// item tag `minecraft:planks`), smelting follows minecraft-data's furnace / blast furnace / smoker recipes and the
// game's timings (200 ticks per item in a furnace, 100 in a blast furnace or smoker; coal burns 1600 ticks).
'use strict'

const LEGACY = {
  planks: ['oak_planks', 'spruce_planks', 'birch_planks', 'jungle_planks', 'acacia_planks', 'dark_oak_planks'],
  log: ['oak_log', 'spruce_log', 'birch_log', 'jungle_log'],
  log2: ['acacia_log', 'dark_oak_log'],
  wood: ['oak_wood', 'spruce_wood', 'birch_wood', 'jungle_wood', 'acacia_wood', 'dark_oak_wood']
}
// Item tags the recipes use, as the set of items in them.
const TAGS = { 'minecraft:planks': (name) => name.endsWith('_planks') }
const ANY = 32767

// Scenario layout: containers placed around the spawn (0.5, -60, 0.5) when the player spawns.
const CHEST = { x: -2, y: -60, z: 2 }
const FURNACE = { x: 1, y: -60, z: -2 }
const BLAST_FURNACE = { x: -1, y: -60, z: -2 }
const EXTRA_STONE = [{ x: 2, y: -60, z: 0 }, { x: 2, y: -60, z: -1 }]
const START_INVENTORY = { 0: ['oak_log', 3] }
const CHEST_CONTENTS = { 0: ['iron_ore', 1], 1: ['coal', 2], 5: ['apple', 3] }
const COOK_TICKS = { furnace: 200, blast_furnace: 100, smoker: 100 }
const FUEL_TICKS = { coal: 1600, charcoal: 1600, oak_planks: 300, stick: 100, oak_log: 300 }
const WINDOW_TYPE = {
  chest: 'container', trapped_chest: 'container', barrel: 'container', ender_chest: 'container',
  furnace: 'furnace', lit_furnace: 'furnace', blast_furnace: 'blast_furnace', smoker: 'smoker', crafting_table: 'workbench'
}
const SIZE = { chest: 27, trapped_chest: 27, barrel: 27, ender_chest: 27, furnace: 3, blast_furnace: 3, smoker: 3 }
// Item-stack request container names of a window's slots.
function slotContainer (block, slot) {
  if (block === 'barrel') return 'barrel'
  if (block.endsWith('shulker_box')) return 'shulker'
  if (SIZE[block] === 3) {
    if (slot === 1) return 'furnace_fuel'
    if (slot === 2) return 'furnace_output'
    return block === 'blast_furnace' ? 'blast_furnace_ingredient' : block === 'smoker' ? 'smoker_ingredient' : 'furnace_ingredient'
  }
  return 'container'
}

// ---------------------------------------------------------------------------------------------------------------------
// Recipes: minecraft-data → the scenario's recipe list → CraftingData in the version's layout
// ---------------------------------------------------------------------------------------------------------------------

// A recipe item of minecraft-data's (legacy) recipes as a 1.26 name, or { tag }, or null when it does not resolve.
function flatten (mcData, it, recipeName) {
  const legacy = LEGACY[it.name]
  let name = it.name
  if (legacy) {
    if (it.name === 'planks' && it.metadata === undefined) {
      const m = /minecraft:(\w+_planks)$/.exec(recipeName || '')
      if (recipeName !== undefined && m) name = m[1] // an output: the recipe says which planks
      else return { tag: 'minecraft:planks' }
    } else name = legacy[it.metadata || 0]
  }
  return name && mcData.itemsByName[name] ? { name } : null
}

function loadRecipes (mcData) {
  const out = []
  let networkId = 1
  for (const r of Object.values(mcData.recipes)) {
    if (r.type !== 'crafting_table' && r.type !== 'crafting_table_shapeless') continue
    const ings = r.ingredients.map(i => flatten(mcData, i))
    const outputs = r.output.map(o => ({ it: flatten(mcData, o, r.name), count: o.count || 1 }))
    if (ings.some(i => !i) || outputs.some(o => !o.it || !o.it.name)) continue
    const output = outputs.map(o => ({ name: o.it.name, count: o.count }))
    if (r.type === 'crafting_table') {
      const rows = r.input
      const height = rows.length
      const width = Math.max(...rows.map(row => row.length))
      const cells = []
      for (const row of rows) for (let x = 0; x < width; x++) cells.push(row[x] ? { ...ings[row[x] - 1], count: 1 } : null)
      out.push({ kind: 'shaped', id: r.name, width, height, cells, output, networkId: networkId++ })
    } else {
      const cells = r.ingredients.map((i, n) => ({ ...ings[n], count: i.count || 1 }))
      out.push({ kind: 'shapeless', id: r.name, cells, output, networkId: networkId++ })
    }
  }
  return out
}

function smeltingTable (mcData) {
  const t = { furnace: {}, blast_furnace: {}, smoker: {} }
  for (const r of Object.values(mcData.recipes)) {
    if (!t[r.type]) continue
    const i = flatten(mcData, r.ingredients[0])
    const o = r.output[0] && flatten(mcData, r.output[0], r.name)
    if (i && i.name && o && o.name) t[r.type][i.name] = o.name
  }
  return t
}

const uuidOf = (n) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`

// CraftingData params in the layout of `types`: one tagged list (≤ 1.26.30) or an array per kind.
function craftingDataParams (types, recipes, itemId) {
  const old = JSON.stringify(types.packet_crafting_data).includes('"recipes"')
  const ingredient = (c) => {
    if (!c) return old ? { type: 'invalid', count: 0 } : { type: 'invalid', metadata: 0, count: 0 }
    if (c.tag) return old ? { type: 'item_tag', tag: c.tag, count: c.count } : { type: 'valid', descriptor_type: 'item_tag', tag: c.tag, metadata: 0, count: c.count }
    const name = 'minecraft:' + c.name
    return old ? { type: 'string_id_meta', name, metadata: ANY, count: c.count } : { type: 'valid', descriptor_type: 'name', name, metadata: ANY, count: c.count }
  }
  const item = (o) => ({ network_id: itemId(o.name), count: o.count, metadata: 0, block_runtime_id: 0, extra: { has_nbt: 'false', can_place_on: [], can_destroy: [], ...(o.name === 'shield' ? { blocking_tick: 0n } : {}) } }) // the shield's extra data has a blocking tick
  const unlock = { context: 'always_unlocked' }
  const body = (r) => {
    const common = { recipe_id: r.id, output: r.output.map(item), uuid: uuidOf(r.networkId), block: 'crafting_table', priority: 0 }
    if (r.kind === 'shapeless') return { ...common, input: r.cells.map(ingredient), unlocking_requirement: unlock, network_id: r.networkId }
    let input = r.cells.map(ingredient)
    if (old) { // width arrays of height cells: input[x][y]
      input = []
      for (let x = 0; x < r.width; x++) {
        const col = []
        for (let y = 0; y < r.height; y++) col.push(ingredient(r.cells[y * r.width + x]))
        input.push(col)
      }
    }
    return { ...common, width: r.width, height: r.height, input, assume_symmetry: true, unlocking_requirement: unlock, network_id: r.networkId }
  }
  const shaped = recipes.filter(r => r.kind === 'shaped')
  const shapeless = recipes.filter(r => r.kind === 'shapeless')
  const tail = { potion_type_recipes: [], potion_container_recipes: [], material_reducers: [], clear_recipes: true }
  if (old) return { recipes: [...shaped.map(r => ({ type: 'shaped', recipe: body(r) })), ...shapeless.map(r => ({ type: 'shapeless', recipe: body(r) }))], ...tail }
  return {
    shaped_recipes: shaped.map(body),
    shapeless_recipes: shapeless.map(body),
    multi_recipes: [],
    shulker_box_recipes: [],
    shapeless_chemistry_recipes: [],
    shaped_chemistry_recipes: [],
    smithing_transform_recipes: [],
    smithing_trim_recipes: [],
    ...tail
  }
}

// Whether item `name` satisfies recipe cell `c`.
const fits = (c, name) => c.tag ? !!(TAGS[c.tag] && TAGS[c.tag](name)) : c.name === name
// Whether a recipe fits the 2×2 grid of the inventory screen.
const fitsSmallGrid = (r) => r.kind === 'shaped' ? r.width <= 2 && r.height <= 2 : r.cells.reduce((n, c) => n + c.count, 0) <= 4

// ---------------------------------------------------------------------------------------------------------------------
// The scenario
// ---------------------------------------------------------------------------------------------------------------------

function scenario (session, deps) {
  const survival = require('./survival.js')
  const { emitEvent } = deps
  const { mcData } = session.ctx
  const recipes = loadRecipes(mcData)
  const byNetId = new Map(recipes.map(r => [r.networkId, r]))
  const smelting = smeltingTable(mcData)
  const items = new Set(['oak_log', 'iron_ore', 'coal', 'apple', 'iron_ingot', 'chest', 'furnace', 'blast_furnace', 'cobblestone', 'stone'])
  for (const r of recipes) for (const c of [...r.cells, ...r.output]) if (c && c.name) items.add(c.name)
  for (const n of Object.keys(TAGS)) for (const it of mcData.itemsArray) if (TAGS[n](it.name)) items.add(it.name)

  let api = null // survival's internals (init)
  const containers = new Map() // "x,y,z" -> { block, slots, cook, burn, burnMax }
  let open = null // { windowId, name, block, pos, c }
  let nextWindow = 1
  let currentReq = null // the id of the request being processed
  let craft = null // the craft of the request being processed: { recipe, times, consumed: [[name, n]], out: [], reqId }

  const windowName = (id) => id === 1 ? 'first' : String(id)
  const slotsJson = (c) => c.slots.map(x => x && { name: x.name, count: x.count })

  const ext = {
    startInventory: START_INVENTORY,
    registryItems: [...items],
    init (a) { api = a },
    onSpawn () {
      const { stack, setBlock, key } = api
      const chest = { block: 'chest', slots: new Array(27).fill(null) }
      for (const [slot, [name, count]] of Object.entries(CHEST_CONTENTS)) chest.slots[Number(slot)] = stack(name, count)
      containers.set(key(CHEST), chest)
      containers.set(key(FURNACE), { block: 'furnace', slots: [null, null, null], cook: 0, burn: 0, burnMax: 0 })
      containers.set(key(BLAST_FURNACE), { block: 'blast_furnace', slots: [null, null, null], cook: 0, burn: 0, burnMax: 0 })
      setBlock(CHEST, 'chest', { 'minecraft:cardinal_direction': 'north' })
      setBlock(FURNACE, 'furnace', { 'minecraft:cardinal_direction': 'north' })
      setBlock(BLAST_FURNACE, 'blast_furnace', { 'minecraft:cardinal_direction': 'north' })
      for (const p of EXTRA_STONE) setBlock(p, 'stone', {})
      session.write('crafting_data', craftingDataParams(mcData.protocol.types, recipes, api.itemId))
      emitEvent({ event: 'crafting_ready', recipes: recipes.length, chest: slotsJson(chest), furnace: FURNACE, blast_furnace: BLAST_FURNACE, chest_pos: CHEST })
    },
    onClickBlock (d, held, clicked) {
      const pos = d.block_position
      const block = clicked.name
      if (!WINDOW_TYPE[block]) return false
      const { s, key, sendContent } = api
      if (open) emitEvent({ event: 'container_replaced', pos: open.pos })
      const windowId = nextWindow
      nextWindow = nextWindow >= 99 ? 1 : nextWindow + 1
      const c = containers.get(key(pos)) || (SIZE[block] ? { block, slots: new Array(SIZE[block]).fill(null), cook: 0, burn: 0, burnMax: 0 } : null)
      if (c && !containers.has(key(pos))) containers.set(key(pos), c)
      open = { windowId, name: windowName(windowId), block, pos, c }
      s.screenOpen = true
      session.write('container_open', { window_id: open.name, window_type: WINDOW_TYPE[block], coordinates: pos, runtime_entity_id: -1n })
      if (c) sendContent(open.name, c.slots)
      emitEvent({ event: 'container_opened', window_id: windowId, block, pos, slots: c ? slotsJson(c) : null })
      return true
    },
    onContainerClose (p) {
      if (!open) return false
      const { s } = api
      session.write('container_close', { window_id: p.window_id, window_type: WINDOW_TYPE[open.block], server: false })
      emitEvent({ event: 'container_closed', window_id: open.windowId, block: open.block, pos: open.pos, slots: open.c ? slotsJson(open.c) : null })
      open = null
      s.screenOpen = false
      return true
    },
    // Container slots of the open window (by the container names its slots have).
    slotRef (info) {
      if (!open || !open.c) return null
      const c = info.slot_type.container_id
      if (c !== slotContainer(open.block, info.slot)) return null
      if (info.slot >= open.c.slots.length) return null
      return { list: open.c.slots, i: info.slot, c }
    },
    save (req) {
      craft = null
      currentReq = req.request_id
      return { slots: open && open.c ? open.c.slots.map(x => x && { ...x }) : null }
    },
    restore (saved) {
      if (saved && saved.slots && open && open.c) open.c.slots.splice(0, saved.slots.length, ...saved.slots)
      craft = null
    },
    stackAction (a, touched, slotRef) {
      const { s, stack } = api
      if (a.type_id === 'craft_recipe_auto' || a.type_id === 'craft_recipe') {
        const r = byNetId.get(a.recipe_network_id)
        if (!r) return `no recipe ${a.recipe_network_id}`
        if (!fitsSmallGrid(r) && !(open && open.block === 'crafting_table')) return 'needs a crafting table'
        if (!s.screenOpen) return 'inventory screen closed'
        const times = a.times_crafted || 1
        craft = { recipe: r, times, consumed: [], out: [] }
        // what the craft makes waits in the created-output slot (50) until the request moves it
        craft.out[50] = { name: r.output[0].name, count: r.output[0].count * times, stackId: 'created' }
        emitEvent({ event: 'craft_started', recipe: r.id, network_id: r.networkId, times })
        return true
      }
      if (a.type_id === 'results_deprecated') {
        if (!craft) return 'results without a craft'
        const names = (a.result_items || []).map(i => i.name ? i.name.replace(/^minecraft:/, '') : mcData.items[i.network_id]?.name)
        if (names[0] !== craft.recipe.output[0].name) return `results ${names[0]} do not match the recipe's ${craft.recipe.output[0].name}`
        return true
      }
      if (a.type_id === 'consume') {
        if (!craft) return 'consume without a craft'
        const src = slotRef(a.source)
        const it = src && src.list[src.i]
        if (!it || it.stackId !== a.source.stack_id) return 'stale stack id'
        if (it.count < a.count) return 'consume more than the slot holds'
        it.count -= a.count
        craft.consumed.push([it.name, a.count])
        if (it.count <= 0) src.list[src.i] = null
        touched.set(`${src.c}:${src.i}`, src)
        return true
      }
      if ((a.type_id === 'place' || a.type_id === 'take') && a.source && a.source.slot_type.container_id === 'creative_output') {
        if (!craft) return 'nothing crafted'
        const out = craft.out[50]
        const dst = slotRef(a.destination)
        if (!out || !dst) return 'bad created output move'
        if (a.source.stack_id !== currentReq) return 'created output named by a wrong stack id (not the request id)'
        const n = Math.min(a.count, out.count)
        const d = dst.list[dst.i]
        if (d && d.name !== out.name) return 'destination holds another item'
        if (d) d.count += n
        else dst.list[dst.i] = stack(out.name, n)
        out.count -= n
        if (out.count <= 0) craft.out[50] = null
        touched.set(`${dst.c}:${dst.i}`, dst)
        return true
      }
      return false
    },
    // A craft must have consumed exactly the recipe's ingredients and moved everything it made.
    finishRequest () {
      if (!craft) return null
      const { recipe: r, times } = craft
      const pool = craft.consumed.map(([name, n]) => ({ name, n }))
      for (const cell of r.cells) {
        if (!cell) continue
        let need = cell.count * times
        for (const p of pool) {
          if (need <= 0) break
          if (p.n > 0 && fits(cell, p.name)) { const k = Math.min(p.n, need); p.n -= k; need -= k }
        }
        if (need > 0) return `missing ingredients for ${r.id}: ${cell.name || cell.tag}`
      }
      if (pool.some(p => p.n > 0)) return `consumed items the recipe ${r.id} does not use`
      if (craft.out[50]) return 'crafted items left in the output'
      emitEvent({ event: 'crafted', recipe: r.id, item: r.output[0].name, count: r.output[0].count * times, times, consumed: craft.consumed })
      craft = null
      return null
    },
    onTick () {
      for (const [k, c] of containers) if (c.slots.length === 3) tickFurnace(k, c)
    }
  }

  // One server tick of a furnace: burn fuel while there is something to smelt, cook, move the result to the output.
  function tickFurnace (k, c) {
    const { sendSlot } = api
    const table = smelting[c.block] || {}
    const [input, fuel, output] = c.slots
    const result = input && table[input.name]
    const canCook = result && (!output || (output.name === result && output.count < 64))
    if (c.burn <= 0 && canCook && fuel && FUEL_TICKS[fuel.name]) {
      c.burn = c.burnMax = FUEL_TICKS[fuel.name]
      fuel.count -= 1
      if (fuel.count <= 0) c.slots[1] = null
      if (open && open.c === c) sendSlot(open.name, 1, c.slots[1])
      emitEvent({ event: 'fuel_lit', block: c.block, fuel: fuel.name, ticks: c.burnMax })
    }
    if (c.burn > 0) c.burn -= 1
    if (c.burn > 0 && canCook) {
      c.cook += 1
      if (c.cook >= COOK_TICKS[c.block]) {
        c.cook = 0
        input.count -= 1
        if (input.count <= 0) c.slots[0] = null
        if (output) output.count += 1
        else c.slots[2] = api.stack(result, 1)
        if (open && open.c === c) { sendSlot(open.name, 0, c.slots[0]); sendSlot(open.name, 2, c.slots[2]) }
        emitEvent({ event: 'smelted', block: c.block, item: result, output: c.slots[2].count })
      }
    } else if (!canCook) c.cook = 0
    if (open && open.c === c && (c.cook % 10 === 1 || c.cook === 0)) {
      session.write('container_set_data', { window_id: open.name, property: 0, value: c.cook })
      session.write('container_set_data', { window_id: open.name, property: 1, value: c.burn })
      session.write('container_set_data', { window_id: open.name, property: 2, value: c.burnMax })
    }
  }

  return survival.scenario(session, deps, ext)
}

module.exports = { scenario, loadRecipes, craftingDataParams, smeltingTable, CHEST, FURNACE, BLAST_FURNACE, EXTRA_STONE, CHEST_CONTENTS, START_INVENTORY }
