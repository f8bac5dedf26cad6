// clawcraft test peer: the `survival` scenario — the server side of a survival game, for the
// inventory and interaction tests. See README.md "Survival scenario" for what it does and logs.
//
// Everything here is written from the Bedrock protocol definitions (minecraft-data 1.26.45) and
// the game data in minecraft-data, independently of the bot: break times are computed here from
// blocks.json / materials.json (hardness, harvest tools, tool speeds, Efficiency), not taken from
// the bot's code.
'use strict'

const fs = require('fs')
const path = require('path')
const movement = require('./movement.js')

// ---------------------------------------------------------------------------------------------------------------------
// Setup: what the player starts with, where things are
// ---------------------------------------------------------------------------------------------------------------------

const EFFICIENCY = 15 // Bedrock enchantment id
const ZOMBIE = { runtime: 100n, unique: 100n, position: { x: 3.5, y: -60, z: -1.5 }, health: 10 }
const NIGHT = 18000

// Sleeping, as vanilla rules it (README "Sleeping"). The clear-weather window: dragonfly's world.TimeSleep /
// world.TimeWake (server/world/sleep.go), the figures of minecraft.wiki "Bed". Monsters: within 8 blocks horizontally
// and 5 vertically of the bed (minecraft.wiki "Bed"; Nukkit's BlockBed checks the same box around the bed).
const SLEEP_FROM = 12542
const SLEEP_UNTIL = 23459
const MONSTER_REACH_H = 8
const MONSTER_REACH_V = 5
// Hostile mobs that keep a player from sleeping (the peer's list; vanilla asks each mob).
const HOSTILE = new Set(['zombie', 'zombie_villager', 'husk', 'drowned', 'skeleton', 'stray', 'wither_skeleton', 'creeper',
  'spider', 'cave_spider', 'witch', 'enderman', 'pillager', 'vindicator', 'evoker', 'phantom', 'silverfish', 'slime'])
const BED_HEIGHT = 0.5625 // the bed's collision box (9/16); a sleeper lies on it
// The bed's `direction` state (0 south, 1 west, 2 north, 3 east): the step from the foot to the head.
const BED_STEP = [[0, 1], [-1, 0], [0, -1], [1, 0]]
// `/time set` names, Bedrock's values
const TIME_NAMES = { day: 1000, noon: 6000, sunset: 12000, night: 13000, midnight: 18000, sunrise: 23000 }
const START_HUNGER = 14
const PICKUP_DELAY_MS = 500 // an item entity can be picked up after this long
const PICKUP_RADIUS = 2.5 // blocks from the player's feet

// slot -> [item name, count, { damage, efficiency }]
const START_INVENTORY = {
  0: ['wooden_pickaxe', 1],
  1: ['dirt', 16],
  2: ['bread', 5],
  3: ['diamond_pickaxe', 1, { efficiency: 5 }],
  4: ['iron_sword', 1],
  5: ['snowball', 4],
  7: ['wooden_axe', 1],
  9: ['cooked_beef', 3],
  12: ['stone_pickaxe', 1],
  30: ['barrier', 1] // a locked item: moving it is refused (the scenario's "some requests are refused")
}
const START_ARMOR = ['iron_helmet', null, null, null]
const START_OFFHAND = 'totem_of_undying'
const REGISTRY_EXTRA = ['obsidian', 'cooked_beef', 'bed', 'wooden_door', 'snowball', 'iron_sword', 'iron_helmet',
  'totem_of_undying', 'barrier', 'short_grass', 'oak_log', 'wooden_axe']

const FOOD = { bread: [5, 0.6], cooked_beef: [8, 0.8], apple: [4, 0.3] }
const USE_TICKS = 32
const THROWABLE = { snowball: 'minecraft:snowball', egg: 'minecraft:egg', ender_pearl: 'minecraft:ender_pearl' }
const INTERACTABLE = /(door|trapdoor|fence_gate|lever|button)$/

// `ext` (optional) extends the scenario (crafting.js): a starting inventory, registry items, and hooks
// called first — onClickBlock, onClickAir (a use in the air), onRelease (an item_release), onHeldChange (the held slot changed: from, to), onEntityUse (an interact on an entity), onPacket (a packet survival does not handle), itemTag (an item's NBT), dropsOf (a broken block's drops), stackAction (one item-stack request action), save/restore (around a
// request), onTick, onContainerClose, onSpawn; each returns true when it handled the packet.
function scenario (session, deps, ext = {}) {
  const { flatScenario, emitEvent, diag, AIR_ITEM } = deps
  const hooks = flatScenario(session)
  const { mcData, world } = session.ctx
  session.registryItems = REGISTRY_EXTRA.concat(ext.registryItems || [])

  const s = {
    tick: 0n, // the bot's PlayerAuthInput tick
    eye: { x: 0.5, y: -58.38, z: 0.5 },
    yaw: 0,
    pitch: 0,
    held: 0,
    nextStack: 1,
    inv: new Array(36).fill(null),
    armor: [null, null, null, null],
    offhand: null,
    screenOpen: false,
    breaking: null, // { pos, face, startTick, expected, block }
    using: null, // { slot, item, startTick }
    hunger: START_HUNGER,
    saturation: 5,
    sleeping: null, // the bed (head) the player sleeps in
    spawnPoint: null, // the bed (head) that set the player's respawn point
    time: NIGHT, // time of day, as last sent with set_time
    monsters: new Map(), // runtime id (string) -> { type, runtime, unique, position, health, alive }
    nextEntity: 1000n,
    items: new Map(), // runtime id -> { name, count, pos, bornAt }
    overlay: new Map() // "x,y,z" -> { name, states }
  }

  // --- items ----------------------------------------------------------------------------------------------------------
  const itemId = (name) => {
    const it = mcData.itemsByName[name]
    if (!it) throw new Error(`no item ${name}`)
    return it.id
  }
  const itemName = (id) => mcData.items[id]?.name
  const stack = (name, count, extra = {}) => ({ name, count, stackId: s.nextStack++, damage: extra.damage || 0, efficiency: extra.efficiency || 0 })
  const wireItem = (it) => {
    if (!it) return AIR_ITEM
    const tag = {}
    if (it.damage) tag.Damage = { type: 'int', value: it.damage }
    if (it.efficiency) tag.ench = { type: 'list', value: { type: 'compound', value: [{ id: { type: 'short', value: EFFICIENCY }, lvl: { type: 'short', value: it.efficiency } }] } }
    if (ext.itemTag) ext.itemTag(it, tag)
    const hasNbt = Object.keys(tag).length > 0
    return {
      network_id: itemId(it.name),
      count: it.count,
      metadata: 0,
      has_stack_id: true,
      stack_id: it.stackId,
      block_runtime_id: 0,
      // bedrock-protocol writes the NBT only for the boolean `true`
      extra: hasNbt
        ? { has_nbt: true, nbt: { version: 1, nbt: { type: 'compound', name: '', value: tag } }, can_place_on: [], can_destroy: [] }
        : { has_nbt: 'false', can_place_on: [], can_destroy: [] }
    }
  }
  const describe = (it) => it ? { name: it.name, count: it.count, stack_id: it.stackId, damage: it.damage } : null
  const sendContent = (windowId, list) => session.write('inventory_content', {
    window_id: windowId,
    input: list.map(wireItem),
    container: { container_id: 'anvil_input' },
    storage_item: AIR_ITEM
  })
  const sendSlot = (windowId, slot, it) => session.write('inventory_slot', {
    window_id: windowId,
    slot,
    container: { container_id: 'anvil_input' },
    storage_item: AIR_ITEM,
    item: wireItem(it)
  })
  const sendInventory = () => {
    sendContent('inventory', s.inv)
    sendContent('armor', s.armor)
    sendContent('offhand', [s.offhand])
  }
  // Stacks onto a stack of the same item up to the item's own stack size (minecraft-data items.json:
  // 64 for most, 16 for empty buckets, signs and eggs, 1 for tools, armour and filled buckets).
  const addToInventory = (name, count) => {
    const max = mcData.itemsByName[name]?.stackSize ?? 64
    let slot = s.inv.findIndex(it => it && it.name === name && it.count + count <= max)
    if (slot >= 0) {
      s.inv[slot].count += count
    } else {
      slot = s.inv.findIndex(it => !it)
      if (slot < 0) return -1
      s.inv[slot] = stack(name, count)
    }
    sendSlot('inventory', slot, s.inv[slot])
    return slot
  }
  const heldItem = () => s.inv[s.held]

  // --- blocks ---------------------------------------------------------------------------------------------------------
  const key = (p) => `${p.x},${p.y},${p.z}`
  const mapBlocks = new Map((world.map?.blocks || []).map(b => [key(b), { name: b.name, states: b.states || {} }]))
  const baseNames = { '-64': 'bedrock', '-63': 'dirt', '-62': 'dirt', '-61': 'grass_block' }
  const blockAt = (p) => s.overlay.get(key(p)) || mapBlocks.get(key(p)) ||
    (baseNames[p.y] ? { name: baseNames[p.y], states: baseNames[p.y] === 'bedrock' ? { infiniburn_bit: 0 } : {} } : { name: 'air', states: {} })
  // movement.js checks positions against this session's blocks (what was broken or placed), not the bare map
  session.blockView = {
    map: world.map,
    stateId: (name, states) => world.stateId(name, states),
    blockAt: (x, y, z) => {
      const o = s.overlay.get(key({ x, y, z }))
      return o ? { l0: world.stateId(o.name, o.states), l1: undefined } : world.blockAt(x, y, z)
    }
  }
  const setBlock = (p, name, states = {}) => {
    s.overlay.set(key(p), { name, states })
    session.write('update_block', { position: p, block_runtime_id: world.wireId(world.stateId(name, states)), flags: { network: true }, layer: 0 })
  }
  const centre = (p) => ({ x: p.x + 0.5, y: p.y + 0.5, z: p.z + 0.5 })
  const dist = (a, b) => Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z)
  const feet = () => ({ x: s.eye.x, y: s.eye.y - 1.62, z: s.eye.z })
  const FACE = [[0, -1, 0], [0, 1, 0], [0, 0, -1], [0, 0, 1], [-1, 0, 0], [1, 0, 0]]

  // Bedrock break time in ticks, from minecraft-data: damage per tick = speed / hardness / (30 if the held item
  // harvests the block else 100); speed = the item's speed on the block's material (materials.json), + level² + 1
  // for Efficiency. No effects in this scenario; the player stands on the ground, dry.
  function breakTicks (blockName, held) {
    const b = mcData.blocksByName[blockName]
    if (!b || b.hardness === null || b.hardness < 0) return Infinity
    if (b.hardness === 0) return 0
    const heldId = held ? itemId(held.name) : null
    const harvest = !b.harvestTools || (heldId !== null && b.harvestTools[heldId] !== undefined)
    let speed = 1
    const mat = mcData.materials[b.material]
    if (heldId !== null && mat && mat[heldId] !== undefined) {
      speed = mat[heldId]
      if (held.efficiency) speed += held.efficiency * held.efficiency + 1
    }
    const damage = speed / b.hardness / (harvest ? 30 : 100)
    return Math.ceil(1 / damage - 1e-9)
  }
  function dropsOf (blockName, held) {
    const b = mcData.blocksByName[blockName]
    const heldId = held ? itemId(held.name) : null
    if (b.harvestTools && (heldId === null || b.harvestTools[heldId] === undefined)) return []
    if (blockName === 'grass_block') return ['dirt']
    if (blockName === 'stone') return ['cobblestone']
    return (b.drops || []).map(id => itemName(id)).filter(Boolean).slice(0, 1)
  }

  // --- item entities and pickups --------------------------------------------------------------------------------------
  function spawnItem (name, count, pos, why) {
    const rid = s.nextEntity++
    session.write('add_item_entity', {
      entity_id_self: rid,
      runtime_entity_id: rid,
      item: { ...wireItem({ name, count, stackId: 0 }), has_stack_id: false, stack_id: undefined },
      position: pos,
      velocity: { x: 0, y: 0, z: 0 },
      metadata: [],
      is_from_fishing: false
    })
    s.items.set(rid, { name, count, pos, bornAt: Date.now() })
    emitEvent({ event: 'item_spawned', runtime_id: rid.toString(), name, count, position: pos, why })
    session.later(PICKUP_DELAY_MS, () => tryPickup(rid))
    return rid
  }
  function tryPickup (rid) {
    const it = s.items.get(rid)
    if (!it) return
    const d = dist(feet(), { x: it.pos.x, y: it.pos.y, z: it.pos.z })
    if (d > PICKUP_RADIUS) return emitEvent({ event: 'pickup_skipped', runtime_id: rid.toString(), distance: Math.round(d * 100) / 100 })
    s.items.delete(rid)
    session.write('take_item_entity', { runtime_entity_id: rid, target: session.runtimeId })
    session.write('remove_entity', { entity_id_self: rid })
    const slot = addToInventory(it.name, it.count)
    emitEvent({ event: 'picked_up', runtime_id: rid.toString(), name: it.name, count: it.count, slot })
  }

  // --- breaking ---------------------------------------------------------------------------------------------------------
  function onBlockAction (a) {
    const pos = a.position
    if (a.action === 'start_break') {
      const block = blockAt(pos)
      const expected = breakTicks(block.name, heldItem())
      s.breaking = { pos, face: a.face, startTick: s.tick, expected, block: block.name }
      emitEvent({ event: 'break_started', pos, block: block.name, expected_ticks: expected, tool: heldItem()?.name || null, tick: s.tick.toString() })
    } else if (a.action === 'abort_break') {
      if (s.breaking) emitEvent({ event: 'break_aborted', pos: s.breaking.pos, elapsed: Number(s.tick - s.breaking.startTick) })
      s.breaking = null
    } else if (a.action === 'predict_break') {
      const b = s.breaking
      const refuse = (why) => {
        const now = blockAt(pos)
        session.write('update_block', { position: pos, block_runtime_id: world.wireId(world.stateId(now.name, now.states)), flags: { network: true }, layer: 0 })
        emitEvent({ event: 'break_refused', pos, why, elapsed: b ? Number(s.tick - b.startTick) : null, expected: b?.expected ?? null })
        s.breaking = null
      }
      if (!b || key(b.pos) !== key(pos)) return refuse('not breaking this block')
      const elapsed = Number(s.tick - b.startTick)
      if (elapsed < b.expected) return refuse('too early')
      if (dist(s.eye, centre(pos)) > 6.5) return refuse('out of reach')
      const held = heldItem()
      const drops = (ext.dropsOf && ext.dropsOf(blockAt(pos), held)) || dropsOf(b.block, held)
      setBlock(pos, 'air')
      for (const d of drops) spawnItem(d, 1, { x: pos.x + 0.5, y: pos.y + 0.25, z: pos.z + 0.5 }, 'break')
      if (held && mcData.itemsByName[held.name].maxDurability) {
        held.damage += 1
        sendSlot('inventory', s.held, held)
      }
      emitEvent({ event: 'block_broken', pos, block: b.block, elapsed, expected: b.expected, tool: held?.name || null, drops, t: Date.now() })
      s.breaking = null
    }
  }

  // --- using items ------------------------------------------------------------------------------------------------------
  function sameItem (wire, it) {
    if (!it) return wire.network_id === 0
    // before 1.26.40 some items carry the stack id as { type, id }
    const stackId = wire.stack_id && typeof wire.stack_id === 'object' ? wire.stack_id.id : wire.stack_id
    return wire.network_id === itemId(it.name) && (!wire.has_stack_id || stackId === it.stackId)
  }

  function onItemUse (d) {
    const held = heldItem()
    if (d.hotbar_slot !== s.held || !sameItem(d.held_item, held)) {
      emitEvent({ event: 'use_refused', why: 'held item mismatch', slot: d.hotbar_slot, held: s.held })
      sendSlot('inventory', s.held, held)
      return
    }
    if (d.action_type === 'click_block') return onClickBlock(d, held)
    if (d.action_type === 'click_air') return onClickAir(held)
  }

  function onClickBlock (d, held) {
    const pos = d.block_position
    const clicked = blockAt(pos)
    if (dist(s.eye, centre(pos)) > 6.5) {
      emitEvent({ event: 'use_refused', why: 'out of reach', pos })
      return
    }
    if (ext.onClickBlock && ext.onClickBlock(d, held, clicked)) return
    if (INTERACTABLE.test(clicked.name)) {
      const open = clicked.states.open_bit ? 0 : 1
      setBlock(pos, clicked.name, { ...clicked.states, open_bit: open })
      if (clicked.name.endsWith('door') && !clicked.name.endsWith('trapdoor')) {
        const other = { x: pos.x, y: pos.y + (clicked.states.upper_block_bit ? -1 : 1), z: pos.z }
        const o = blockAt(other)
        if (o.name === clicked.name) setBlock(other, o.name, { ...o.states, open_bit: open })
      }
      emitEvent({ event: 'block_interacted', pos, block: clicked.name, open_bit: open })
      return
    }
    if (clicked.name === 'bed') return onBed(pos, clicked)
    // placing the held block item against the clicked face
    const n = FACE[d.face] || [0, 1, 0]
    const target = { x: pos.x + n[0], y: pos.y + n[1], z: pos.z + n[2] }
    const refuse = (why) => {
      const now = blockAt(target)
      session.write('update_block', { position: target, block_runtime_id: world.wireId(world.stateId(now.name, now.states)), flags: { network: true }, layer: 0 })
      sendSlot('inventory', s.held, held)
      emitEvent({ event: 'place_refused', pos: target, why })
    }
    const itemDef = held && mcData.itemsByName[held.name]
    const blockDef = itemDef && mcData.blocksByName[held.name]
    if (!blockDef) return refuse('not a block item')
    if (blockAt(target).name !== 'air') return refuse('occupied')
    const f = feet()
    const body = [Math.floor(f.y + 0.001), Math.floor(f.y + 0.001) + 1]
    if (target.x === Math.floor(f.x) && target.z === Math.floor(f.z) && body.includes(target.y)) return refuse('player inside')
    setBlock(target, held.name, {})
    held.count -= 1
    if (held.count <= 0) s.inv[s.held] = null
    sendSlot('inventory', s.held, s.inv[s.held])
    emitEvent({ event: 'block_placed', pos: target, block: held.name, against: pos, face: d.face, left: held.count })
  }

  function onClickAir (held) {
    if (!held) return
    if (ext.onClickAir && ext.onClickAir(held)) return
    if (FOOD[held.name] && !s.using) {
      s.using = { slot: s.held, item: held.name, startTick: s.tick }
      emitEvent({ event: 'use_started', item: held.name, tick: s.tick.toString() })
      return
    }
    if (THROWABLE[held.name]) {
      held.count -= 1
      if (held.count <= 0) s.inv[s.held] = null
      sendSlot('inventory', s.held, s.inv[s.held])
      const rid = s.nextEntity++
      session.write('add_entity', {
        unique_id: rid, runtime_id: rid, entity_type: THROWABLE[held.name], position: { ...s.eye },
        velocity: { x: 0, y: 0, z: 0 }, pitch: 0, yaw: 0, head_yaw: 0, body_yaw: 0, attributes: [], metadata: [],
        properties: { ints: [], floats: [] }, links: []
      })
      emitEvent({ event: 'thrown', item: held.name, runtime_id: rid.toString() })
    }
  }

  // A held-slot change ends an item use in progress, as vanilla does (dragonfly Player.SetHeldSlot clears usingItem):
  // nothing is eaten, and a later item_release finds no use.
  function endUse (from) {
    const u = s.using
    if (!u) return
    s.using = null
    emitEvent({ event: 'use_cancelled', item: u.item, from, to: s.held, ticks: Number(s.tick - u.startTick) })
  }

  // The server finishes an item use after its duration (counted in the player's ticks).
  function tickUse () {
    const u = s.using
    if (!u || s.tick - u.startTick < BigInt(USE_TICKS)) return
    s.using = null
    const it = s.inv[u.slot]
    if (!it || it.name !== u.item) return
    const [nutrition, sat] = FOOD[u.item]
    it.count -= 1
    if (it.count <= 0) s.inv[u.slot] = null
    const before = s.hunger
    s.hunger = Math.min(20, s.hunger + nutrition)
    s.saturation = Math.min(s.hunger, s.saturation + nutrition * sat * 2)
    session.write('completed_using_item', { used_item_id: itemId(u.item), use_method: 'eat' })
    sendSlot('inventory', u.slot, s.inv[u.slot])
    session.write('update_attributes', {
      runtime_entity_id: BigInt(session.runtimeId),
      attributes: [
        deps.attribute('minecraft:player.hunger', 0, 20, s.hunger, 20),
        deps.attribute('minecraft:player.saturation', 0, 20, s.saturation, 20)
      ],
      tick: 0n
    })
    emitEvent({ event: 'ate', item: u.item, hunger_before: before, hunger: s.hunger, left: it.count, ticks: Number(s.tick - u.startTick) })
  }

  // --- attacking ----------------------------------------------------------------------------------------------------------
  function onAttack (d) {
    if (ext.onAttack && ext.onAttack(d)) return
    const z = s.monsters.get(String(d.entity_runtime_id))
    if (!z || !z.alive) return emitEvent({ event: 'attack_missed', target: String(d.entity_runtime_id) })
    const distance = dist(feet(), z.position)
    if (distance > 6) return emitEvent({ event: 'attack_refused', why: 'out of reach', distance })
    const held = heldItem()
    const damage = held?.name.endsWith('_sword') ? 6 : held?.name.endsWith('_pickaxe') ? 4 : 1
    z.health = Math.max(0, z.health - damage)
    session.write('entity_event', { runtime_entity_id: z.runtime, event_id: 'hurt_animation', data: 0 })
    session.write('update_attributes', { runtime_entity_id: z.runtime, attributes: [deps.attribute('minecraft:health', 0, 20, z.health, 20)], tick: 0n })
    emitEvent({ event: `${z.type}_hurt`, runtime_id: String(z.runtime), damage, health: z.health, tool: held?.name || null })
    if (z.health <= 0) {
      z.alive = false
      session.write('entity_event', { runtime_entity_id: z.runtime, event_id: 'death_animation', data: 0 })
      session.later(500, () => session.write('remove_entity', { entity_id_self: z.unique }))
      emitEvent({ event: `${z.type}_killed`, runtime_id: String(z.runtime) })
    }
  }

  // --- monsters, time, sleeping -----------------------------------------------------------------------------------------
  function spawnMonster (type, position, runtime = s.nextEntity++) {
    const m = { type, runtime, unique: runtime, position: { ...position }, health: 10, alive: true }
    s.monsters.set(String(runtime), m)
    session.write('add_entity', {
      unique_id: m.unique, runtime_id: m.runtime, entity_type: `minecraft:${type}`, position: m.position,
      velocity: { x: 0, y: 0, z: 0 }, pitch: 0, yaw: 0, head_yaw: 0, body_yaw: 0, attributes: [], metadata: [],
      properties: { ints: [], floats: [] }, links: []
    })
    return m
  }
  function removeMonster (m) {
    m.alive = false
    session.write('remove_entity', { entity_id_self: m.unique })
  }
  function setTime (time) {
    s.time = ((time % 24000) + 24000) % 24000
    session.write('set_time', { time })
  }

  // The two halves of the bed at `pos`: its `direction` points from the foot to the head.
  function bedHalves (pos, bed) {
    const [dx, dz] = BED_STEP[(bed.states.direction || 0) & 3]
    const sign = bed.states.head_piece_bit ? -1 : 1
    const other = { x: pos.x + sign * dx, y: pos.y, z: pos.z + sign * dz }
    return bed.states.head_piece_bit ? { head: pos, foot: other } : { head: other, foot: pos }
  }
  // The first living hostile within MONSTER_REACH_H blocks horizontally (per axis, of the bed's two blocks) and
  // MONSTER_REACH_V vertically (of the bed's y) — feet positions.
  function monsterNear ({ head, foot }) {
    const gap = (v, a, b) => Math.max(Math.min(a, b) - v, 0, v - (Math.max(a, b) + 1))
    for (const m of s.monsters.values()) {
      if (!m.alive || !HOSTILE.has(m.type)) continue
      const p = m.position
      if (gap(p.x, head.x, foot.x) <= MONSTER_REACH_H && gap(p.z, head.z, foot.z) <= MONSTER_REACH_H && Math.abs(p.y - head.y) <= MONSTER_REACH_V) return m
    }
    return null
  }
  function bedMessage (key) {
    // as dragonfly and Nukkit send it: a translation, grey (§7), the key marked with %
    session.write('text', { needs_translation: true, category: 'message_only', type: 'translation', message: `\u00a77%${key}`, parameters: [], xuid: '', platform_chat_id: '', has_filtered_message: false })
  }
  function setOccupied (halves, occupied) {
    for (const p of [halves.head, halves.foot]) {
      const b = blockAt(p)
      if (b.name === 'bed') setBlock(p, 'bed', { ...b.states, occupied_bit: occupied ? 1 : 0 })
    }
  }

  // A click on a bed, in vanilla's order: the respawn point is set, then the time is checked, then monsters near the
  // bed; sleeping moves the player onto the bed (move_player reset) and sets its sleeping flag and bed position.
  function onBed (pos, bed) {
    const halves = bedHalves(pos, bed)
    const { head } = halves
    if (s.sleeping) return emitEvent({ event: 'sleep_refused', reason: 'already_sleeping', bed: head })
    if (!s.spawnPoint || key(s.spawnPoint) !== key(head)) {
      s.spawnPoint = head
      bedMessage('tile.bed.respawnSet')
    }
    if (s.time <= SLEEP_FROM || s.time >= SLEEP_UNTIL) {
      bedMessage('tile.bed.noSleep')
      return emitEvent({ event: 'sleep_refused', reason: 'not_night', key: 'tile.bed.noSleep', bed: head, time: s.time })
    }
    const m = monsterNear(halves)
    if (m) {
      bedMessage('tile.bed.notSafe')
      const c = { x: head.x + 0.5, y: head.y, z: head.z + 0.5 }
      const distance = Math.round(Math.hypot(m.position.x - c.x, m.position.z - c.z) * 100) / 100
      return emitEvent({ event: 'sleep_refused', reason: 'monsters_nearby', key: 'tile.bed.notSafe', bed: head, monster: { type: m.type, runtime_id: String(m.runtime), position: m.position, distance } })
    }
    s.sleeping = head
    setOccupied(halves, true)
    session.write('set_entity_data', {
      runtime_entity_id: BigInt(session.runtimeId),
      metadata: [
        { key: 'flags_extended', type: 'long', legacy_type: 7, value: { sleeping: true } },
        { key: 'player_bed_position', type: 'vec3i', legacy_type: 6, value: head }
      ],
      properties: { ints: [], floats: [] },
      tick: 0n
    })
    // lying on the head block, feet on the bed's top, facing the way the bed points
    const lying = { x: head.x + 0.5, y: head.y + BED_HEIGHT, z: head.z + 0.5 }
    const eye = { x: lying.x, y: lying.y + 1.62, z: lying.z }
    const yaw = [0, 90, 180, -90][(bed.states.direction || 0) & 3]
    session.write('move_player', {
      runtime_id: session.runtimeId, position: eye, pitch: 0, yaw, head_yaw: yaw, mode: 'reset', on_ground: true,
      ridden_runtime_id: 0, teleport: undefined, tick: s.tick
    })
    movement.onTeleport(session, eye)
    emitEvent({ event: 'sleeping', bed: head, position: lying, yaw, time: s.time })
  }

  // `/time set <day|noon|sunset|night|midnight|sunrise|ticks>`, `/summon <entity> <x> <y> <z>`,
  // `/kill @e[type=<entity>]`: the output entries, or null for any other command.
  function onCommand (command, word) {
    const words = command.replace(/^\//, '').trim().split(/\s+/)
    const bare = (n) => String(n || '').toLowerCase().replace(/^minecraft:/, '')
    if (word === 'time') {
      const v = bare(words[2])
      const t = TIME_NAMES[v] ?? (/^\d+$/.test(v) ? Number(v) : NaN)
      if (bare(words[1]) !== 'set' || !Number.isFinite(t)) return [{ message_id: 'commands.generic.usage', success: false, parameters: ['/time set <day|night|noon|midnight|sunrise|sunset|ticks>'] }]
      setTime(t)
      emitEvent({ event: 'time_set', time: t, by: 'command' })
      return [{ message_id: 'commands.time.set', success: true, parameters: [String(t)] }]
    }
    if (word === 'summon') {
      const type = bare(words[1])
      const [x, y, z] = words.slice(2, 5).map(Number)
      if (!type || ![x, y, z].every(Number.isFinite)) return [{ message_id: 'commands.generic.usage', success: false, parameters: ['/summon <entity> <x> <y> <z>'] }]
      const m = spawnMonster(type, { x, y, z })
      emitEvent({ event: 'summoned', type, runtime_id: String(m.runtime), position: m.position })
      return [{ message_id: 'commands.summon.success', success: true, parameters: [] }]
    }
    if (word === 'kill') {
      const t = (words[1] || '').match(/^@e\[type=([\w:]+)\]$/)
      if (!t) return [{ message_id: 'commands.generic.usage', success: false, parameters: ['/kill @e[type=<entity>]'] }]
      const killed = [...s.monsters.values()].filter(m => m.alive && m.type === bare(t[1]))
      for (const m of killed) removeMonster(m)
      emitEvent({ event: 'killed', type: bare(t[1]), runtime_ids: killed.map(m => String(m.runtime)) })
      if (!killed.length) return [{ message_id: 'commands.generic.noTargetMatch', success: false, parameters: [] }]
      return [{ message_id: 'commands.kill.successful', success: true, parameters: [killed.map(m => m.type).join(', ')] }]
    }
    return null
  }
  hooks.onCommand = onCommand

  // --- item-stack requests --------------------------------------------------------------------------------------------------
  // Slots: hotbar (0-8) and inventory (9-35) use absolute numbers; armor 0-3; offhand; cursor.
  function slotRef (info) {
    const c = info.slot_type.container_id
    if (c === 'hotbar' || c === 'inventory' || c === 'hotbar_and_inventory') return { list: s.inv, i: info.slot, c }
    if (c === 'armor') return { list: s.armor, i: info.slot, c }
    return ext.slotRef ? ext.slotRef(info) : null
  }
  function onStackRequest (req) {
    const touched = new Map() // "container:slot" -> ref
    const fail = (why) => {
      session.write('item_stack_response', { responses: [{ status: 'error', request_id: req.request_id, containers_presence: false }] })
      sendInventory() // the client's view is resynced from ours
      emitEvent({ event: 'stack_refused', request_id: req.request_id, why })
    }
    // validate and apply on a copy
    const saved = { inv: s.inv.map(x => x && { ...x }), armor: s.armor.map(x => x && { ...x }), ext: ext.save && ext.save(req) }
    const restore = () => { s.inv = saved.inv; s.armor = saved.armor; if (ext.restore) ext.restore(saved.ext) }
    for (const a of req.actions) {
      const handled = ext.stackAction && ext.stackAction(a, touched, slotRef)
      if (typeof handled === 'string') { restore(); return fail(handled) }
      if (handled) continue
      const src = a.source && slotRef(a.source)
      const dst = a.destination && slotRef(a.destination)
      if (a.source && !src) { restore(); return fail(`unknown container ${a.source.slot_type.container_id}`) }
      if (a.destination && !dst) { restore(); return fail(`unknown container ${a.destination.slot_type.container_id}`) }
      const crosses = [src, dst].some(r => r && (r.c === 'inventory' || r.c === 'armor'))
      if (crosses && !s.screenOpen) { restore(); return fail('inventory screen closed') }
      const sItem = src && src.list[src.i]
      if (src && (!sItem || sItem.stackId !== a.source.stack_id)) { restore(); return fail('stale stack id') }
      if (sItem && sItem.name === 'barrier') { restore(); return fail('locked item') }
      if (a.type_id === 'swap') {
        const dItem = dst.list[dst.i]
        if (dItem && dItem.stackId !== a.destination.stack_id) { restore(); return fail('stale stack id') }
        dst.list[dst.i] = sItem
        src.list[src.i] = dItem || null
      } else if (a.type_id === 'place' || a.type_id === 'take') {
        const dItem = dst.list[dst.i]
        const n = Math.min(a.count, sItem.count)
        if (dItem && dItem.name !== sItem.name) { restore(); return fail('destination holds another item') }
        if (dItem) dItem.count += n
        else dst.list[dst.i] = { ...sItem, count: n, stackId: n === sItem.count ? sItem.stackId : s.nextStack++ }
        sItem.count -= n
        if (sItem.count <= 0) src.list[src.i] = null
      } else if (a.type_id === 'drop') {
        const n = Math.min(a.count, sItem.count)
        sItem.count -= n
        if (sItem.count <= 0) src.list[src.i] = null
        const yaw = s.yaw * Math.PI / 180
        spawnItem(sItem.name, n, { x: s.eye.x - Math.sin(yaw) * 1.2, y: s.eye.y - 0.3, z: s.eye.z + Math.cos(yaw) * 1.2 }, 'drop')
      } else {
        restore()
        return fail(`unsupported action ${a.type_id}`)
      }
      if (src) touched.set(`${src.c}:${src.i}`, src)
      if (dst) touched.set(`${dst.c}:${dst.i}`, dst)
    }
    const unfinished = ext.finishRequest && ext.finishRequest()
    if (unfinished) { restore(); return fail(unfinished) }
    const containers = new Map()
    for (const r of touched.values()) {
      const it = r.list[r.i]
      if (!containers.has(r.c)) containers.set(r.c, [])
      containers.get(r.c).push({
        slot: r.i, hotbar_slot: r.i, count: it ? it.count : 0,
        item_stack_id_presence: true, item_stack_id: it ? it.stackId : 0,
        custom_name: '', filtered_custom_name: '', durability_correction: 0
      })
    }
    session.write('item_stack_response', {
      responses: [{
        status: 'ok',
        request_id: req.request_id,
        containers_presence: true,
        containers: [...containers].map(([c, slots]) => ({ slot_type: { container_id: c }, slots }))
      }]
    })
    emitEvent({ event: 'stack_ok', request_id: req.request_id, actions: req.actions.map(a => a.type_id) })
  }

  // Legacy (normal) transaction: the offhand moves this way.
  function onNormalTransaction (t) {
    const acts = t.actions || []
    // window ids as numbers (1.26.40+) or, before, as `inventory_id` window names
    const win = (a) => {
      const w = a.window_id ?? a.inventory_id
      return w === 119 || w === 'offhand' ? 'offhand' : w === 120 || w === 'armor' ? 'armor' : w === 0 || w === 'inventory' ? 'inventory' : null
    }
    const get = (w, i) => w === 'offhand' ? s.offhand : w === 'armor' ? s.armor[i] : s.inv[i]
    const put = (w, i, v) => { if (w === 'offhand') s.offhand = v; else if (w === 'armor') s.armor[i] = v; else s.inv[i] = v }
    if (acts.length !== 2 || acts.some(a => !win(a))) return emitEvent({ event: 'legacy_refused', why: 'shape' })
    const [a, b] = acts
    const itA = get(win(a), a.slot)
    if (!sameItem(a.old_item, itA)) {
      sendInventory()
      return emitEvent({ event: 'legacy_refused', why: 'old item mismatch' })
    }
    const itB = get(win(b), b.slot)
    put(win(b), b.slot, itA)
    put(win(a), a.slot, itB)
    sendSlot(win(a), win(a) === 'offhand' ? 0 : a.slot, get(win(a), a.slot))
    sendSlot(win(b), win(b) === 'offhand' ? 0 : b.slot, get(win(b), b.slot))
    emitEvent({ event: 'legacy_move', from: { window: win(a), slot: a.slot }, to: { window: win(b), slot: b.slot }, item: itA?.name })
  }

  // --- the join -------------------------------------------------------------------------------------------------------------
  for (const [slot, [name, count, extra]] of Object.entries(ext.startInventory || START_INVENTORY)) s.inv[Number(slot)] = stack(name, count, extra)
  s.armor = START_ARMOR.map(n => n && stack(n, 1))
  s.offhand = stack(START_OFFHAND, 1)

  const onSpawn = hooks.onSpawn.bind(hooks)
  hooks.onSpawn = () => {
    onSpawn()
    sendInventory()
    session.write('player_hotbar', { selected_slot: 0, window_id: 'inventory', select_slot: true })
    setTime(NIGHT)
    session.write('update_attributes', {
      runtime_entity_id: BigInt(session.runtimeId),
      attributes: [deps.attribute('minecraft:player.hunger', 0, 20, s.hunger, 20), deps.attribute('minecraft:player.saturation', 0, 20, s.saturation, 20)],
      tick: 0n
    })
    if (!ext.noStartZombie) spawnMonster('zombie', ZOMBIE.position, ZOMBIE.runtime)
    if (ext.onSpawn) ext.onSpawn()
    emitEvent({ event: 'survival_ready', inventory: s.inv.map(describe), armor: s.armor.map(describe), offhand: describe(s.offhand), hunger: s.hunger })
  }

  hooks.onPacket = (name, p) => {
    try {
      switch (name) {
        case 'player_auth_input':
          s.tick = BigInt(p.tick)
          s.eye = p.position
          s.yaw = p.yaw
          s.pitch = p.pitch
          for (const a of (p.block_action || [])) onBlockAction(a)
          tickUse()
          if (ext.onTick) ext.onTick()
          break
        case 'mob_equipment':
          if (p.selected_slot >= 0 && p.selected_slot < 9) {
            const from = s.held
            s.held = p.selected_slot
            emitEvent({ event: 'held', slot: s.held, item: heldItem()?.name || null })
            if (from !== s.held) endUse(from)
            if (from !== s.held && ext.onHeldChange) ext.onHeldChange(from, s.held)
          }
          break
        case 'interact':
          if (p.action_id === 'open_inventory') {
            s.screenOpen = true
            session.write('container_open', { window_id: 'inventory', window_type: 'inventory', coordinates: { x: Math.floor(s.eye.x), y: Math.floor(s.eye.y - 1.62), z: Math.floor(s.eye.z) }, runtime_entity_id: -1n })
            emitEvent({ event: 'screen_opened' })
          }
          break
        case 'container_close':
          if (ext.onContainerClose && ext.onContainerClose(p)) break
          if (s.screenOpen) {
            s.screenOpen = false
            session.write('container_close', { window_id: p.window_id, window_type: p.window_type, server: false })
            emitEvent({ event: 'screen_closed' })
          }
          break
        case 'item_stack_request':
          for (const req of (p.requests || [])) onStackRequest(req)
          break
        case 'inventory_transaction': {
          const t = p.transaction
          if (t.transaction_type === 'item_use') onItemUse(t.transaction_data)
          else if (t.transaction_type === 'item_use_on_entity' && t.transaction_data.action_type === 'attack') onAttack(t.transaction_data)
          else if (t.transaction_type === 'item_use_on_entity' && t.transaction_data.action_type === 'interact' && ext.onEntityUse) ext.onEntityUse(t.transaction_data, heldItem())
          else if (t.transaction_type === 'item_release') {
            if (ext.onRelease && ext.onRelease(t.transaction_data, heldItem())) break
            if (s.using) emitEvent({ event: 'use_released', item: s.using.item })
            s.using = null
          } else if (t.transaction_type === 'normal') onNormalTransaction(t)
          break
        }
        case 'player_action':
          if (p.action === 'stop_sleeping' && s.sleeping) {
            const bed = blockAt(s.sleeping)
            if (bed.name === 'bed') setOccupied(bedHalves(s.sleeping, bed), false)
            s.sleeping = null
            session.write('set_entity_data', {
              runtime_entity_id: BigInt(session.runtimeId),
              metadata: [{ key: 'flags_extended', type: 'long', legacy_type: 7, value: { sleeping: false } }],
              properties: { ints: [], floats: [] },
              tick: 0n
            })
            session.write('animate', { action_id: 'wake_up', runtime_entity_id: BigInt(session.runtimeId), data: 0, has_swing_source: false })
            emitEvent({ event: 'woke' })
          }
          break
        default:
          if (ext.onPacket) ext.onPacket(name, p)
      }
    } catch (e) {
      diag(`survival: ${name} failed:`, e.stack || e.message)
    }
  }
  if (ext.init) ext.init({ s, stack, wireItem, sendSlot, sendContent, blockAt, setBlock, itemId, dist, centre, feet, key, spawnItem, spawnMonster, addToInventory })
  return hooks
}

function loadSurvivalMap () {
  return JSON.parse(fs.readFileSync(path.join(__dirname, 'maps', 'survival.json'), 'utf8'))
}

module.exports = { scenario, loadSurvivalMap, START_INVENTORY, ZOMBIE }
