// clawcraft test peer: the `farm` scenario — farming on the server side, on top of the survival scenario
// (survival.js). See README.md "Farm scenario" for what it models and what it simplifies.
//
// Written from the Bedrock block states in minecraft-data (wheat/carrots/potatoes/beetroot `growth` 0–7, farmland
// `moisturized_amount`) and the game's documented rules (minecraft.wiki "Hoe", "Farmland", "Wheat Seeds", "Bone Meal"),
// independently of the bot.
'use strict'

// The field: eight farmland cells around the spawn block (the player stands on grass at (0, -61, 0)), each with wheat
// at the growth given here. Mature = 7.
const FIELD = [
  [-1, -1, 7], [0, -1, 7], [1, -1, 3],
  [-1, 0, 7], [1, 0, 5],
  [-1, 1, 7], [0, 1, 2], [1, 1, 7]
]
const SOIL_Y = -61
const START_INVENTORY = {
  0: ['wooden_hoe', 1],
  1: ['wheat_seeds', 8],
  2: ['bone_meal', 6],
  3: ['bread', 2],
  4: ['wheat', 4],
  5: ['bucket', 1],
  6: ['shears', 1],
  9: ['carrot', 4]
}
// Animals around the field (feet positions), adults.
const ANIMALS = [
  { type: 'cow', position: { x: 2.5, y: -60, z: 2.5 } },
  { type: 'cow', position: { x: 2.5, y: -60, z: 3.5 } },
  { type: 'sheep', position: { x: -2.5, y: -60, z: -0.5 } }
]
// What each animal eats to breed (minecraft.wiki "Breeding"; the ones the scenario has and a few more).
const BREEDING_FOOD = {
  cow: ['wheat'], mooshroom: ['wheat'], sheep: ['wheat'], goat: ['wheat'],
  pig: ['carrot', 'potato', 'beetroot'], chicken: ['wheat_seeds', 'pumpkin_seeds', 'melon_seeds', 'beetroot_seeds']
}
const BABY_AFTER_MS = 1000 // the pair meet and the baby appears
// Crops: block → the seed item, the drops of a mature crop (besides its seeds).
const CROPS = {
  wheat: { seed: 'wheat_seeds', mature: 7, produce: ['wheat', 1, 1] },
  carrots: { seed: 'carrot', mature: 7, produce: ['carrot', 1, 3] },
  potatoes: { seed: 'potato', mature: 7, produce: ['potato', 1, 3] },
  beetroot: { seed: 'beetroot_seeds', mature: 7, produce: ['beetroot', 1, 1] }
}
const SEED_CROP = Object.fromEntries(Object.entries(CROPS).map(([block, c]) => [c.seed, block]))
// A hoe turns these into farmland (coarse dirt into dirt), from the top or a side, with air above.
const TILLS = { grass_block: 'farmland', dirt: 'farmland', grass_path: 'farmland', dirt_path: 'farmland', coarse_dirt: 'dirt' }
const FACE = [[0, -1, 0], [0, 1, 0], [0, 0, -1], [0, 0, 1], [-1, 0, 0], [1, 0, 0]]
const UP = 1
const DOWN = 0

// `rand(a, b)`: an integer in a..b. Bone meal's 2–5 stages and the seeds' 0–3 are random in the game; the peer
// reports what it chose in its events, so tests compare the bot's receipt with the peer's word.
const rand = (a, b) => a + Math.floor(Math.random() * (b - a + 1))

function scenario (session, deps) {
  const survival = require('./survival.js')
  const { emitEvent } = deps
  let api = null
  const items = ['wooden_hoe', 'stone_hoe', 'iron_hoe', 'wheat_seeds', 'wheat', 'bone_meal', 'carrot', 'potato',
    'beetroot_seeds', 'beetroot', 'bread', 'bucket', 'milk_bucket', 'shears', 'white_wool']
  const animals = new Map() // runtime id (string) -> { type, runtime, position, baby, inLove, bred, sheared }

  const ext = {
    startInventory: START_INVENTORY,
    registryItems: items,
    init (a) { api = a },
    onSpawn () {
      for (const [x, z, growth] of FIELD) {
        api.setBlock({ x, y: SOIL_Y, z }, 'farmland', { moisturized_amount: 0 })
        api.setBlock({ x, y: SOIL_Y + 1, z }, 'wheat', { growth })
      }
      for (const a of ANIMALS) addAnimal(a.type, a.position, false)
      emitEvent({
        event: 'farm_ready',
        field: FIELD.map(([x, z, growth]) => ({ x, y: SOIL_Y + 1, z, growth })),
        animals: [...animals.values()].map(a => ({ type: a.type, runtime_id: String(a.runtime), position: a.position }))
      })
    },
    onClickBlock (d, held, clicked) {
      const name = held?.name || ''
      if (name.endsWith('_hoe')) return till(d, held, clicked)
      if (SEED_CROP[name]) return plant(d, held, clicked)
      if (name === 'bone_meal') return boneMeal(d, held, clicked)
      return false
    },
    onEntityUse (d, held) { return useOnAnimal(d, held) },
    // A broken crop drops its seed when immature; when mature its produce and 0–3 more seeds (wheat: 1 wheat,
    // 0–3 seeds; carrots/potatoes 1–3 of themselves (those are their seed); beetroot 1 beetroot, 0–3 seeds).
    dropsOf (block) {
      const c = CROPS[block.name]
      if (!c) return null
      if ((block.states.growth || 0) < c.mature) return [c.seed]
      const [item, lo, hi] = c.produce
      const out = new Array(rand(lo, hi)).fill(item)
      if (item !== c.seed) for (let i = rand(0, 3); i > 0; i--) out.push(c.seed)
      return out
    }
  }

  // Puts the client's view of `pos` back (a refused click) and says why.
  function refuse (event, pos, why, held) {
    const b = api.blockAt(pos)
    api.setBlock(pos, b.name, b.states)
    if (held) api.sendSlot('inventory', api.s.held, held)
    emitEvent({ event, pos, why })
    return true
  }
  function spend (held) {
    held.count -= 1
    if (held.count <= 0) api.s.inv[api.s.held] = null
    api.sendSlot('inventory', api.s.held, api.s.inv[api.s.held])
  }

  function till (d, held, clicked) {
    const pos = d.block_position
    const into = TILLS[clicked.name]
    if (!into) return refuse('till_refused', pos, `a hoe does not till ${clicked.name}`)
    if (d.face === DOWN) return refuse('till_refused', pos, 'clicked from below')
    const above = api.blockAt({ x: pos.x, y: pos.y + 1, z: pos.z })
    if (above.name !== 'air') return refuse('till_refused', pos, `${above.name} on top`)
    api.setBlock(pos, into, into === 'farmland' ? { moisturized_amount: 0 } : {})
    held.damage += 1
    api.sendSlot('inventory', api.s.held, held)
    emitEvent({ event: 'tilled', pos, from: clicked.name, to: into, hoe: held.name })
    return true
  }

  function plant (d, held, clicked) {
    const pos = d.block_position
    const n = FACE[d.face] || FACE[UP]
    const target = { x: pos.x + n[0], y: pos.y + n[1], z: pos.z + n[2] }
    if (d.face !== UP) return refuse('plant_refused', target, 'seeds go on the top face', held)
    if (clicked.name !== 'farmland') return refuse('plant_refused', target, `${held.name} needs farmland, not ${clicked.name}`, held)
    if (api.blockAt(target).name !== 'air') return refuse('plant_refused', target, 'occupied', held)
    const crop = SEED_CROP[held.name]
    api.setBlock(target, crop, { growth: 0 })
    spend(held)
    emitEvent({ event: 'planted', pos: target, crop, seed: held.name, left: held.count })
    return true
  }

  function boneMeal (d, held, clicked) {
    const pos = d.block_position
    const c = CROPS[clicked.name]
    if (!c) return refuse('bone_meal_refused', pos, `no effect on ${clicked.name}`, held)
    const before = clicked.states.growth || 0
    if (before >= c.mature) return refuse('bone_meal_refused', pos, 'mature', held)
    const after = Math.min(c.mature, before + rand(2, 5))
    api.setBlock(pos, clicked.name, { ...clicked.states, growth: after })
    spend(held)
    emitEvent({ event: 'bone_mealed', pos, block: clicked.name, before, after, left: held.count })
    return true
  }

  // --- animals ------------------------------------------------------------------------------------------------------
  function addAnimal (type, position, baby) {
    const rid = api.s.nextEntity++
    const a = { type, runtime: rid, position: { ...position }, baby, inLove: false, bred: false, sheared: false }
    animals.set(String(rid), a)
    session.write('add_entity', {
      unique_id: rid, runtime_id: rid, entity_type: `minecraft:${type}`, position: a.position,
      velocity: { x: 0, y: 0, z: 0 }, pitch: 0, yaw: 0, head_yaw: 0, body_yaw: 0, attributes: [],
      metadata: baby ? [flags({ baby: true })] : [], properties: { ints: [], floats: [] }, links: []
    })
    return a
  }
  function flags (value) { return { key: 'flags', type: 'long', legacy_type: 7, value } }
  function setFlags (a, value) {
    session.write('set_entity_data', { runtime_entity_id: a.runtime, metadata: [flags(value)], properties: { ints: [], floats: [] }, tick: 0n })
  }

  // An interact on an animal with the held item: breeding food, a bucket on a cow, shears on a sheep.
  function useOnAnimal (d, held) {
    const a = animals.get(String(d.entity_runtime_id))
    const refuse = (why) => { emitEvent({ event: 'entity_use_refused', runtime_id: String(d.entity_runtime_id), why }); return true }
    if (!a) return refuse('no such animal')
    if (api.dist(api.s.eye, a.position) > 6) return refuse('out of reach')
    const name = held?.name || ''
    if ((BREEDING_FOOD[a.type] || []).includes(name)) {
      if (a.baby) return refuse('a baby does not breed')
      if (a.inLove || a.bred) return refuse('not ready to breed')
      spend(held)
      a.inLove = true
      setFlags(a, { inlove: true })
      session.write('entity_event', { runtime_entity_id: a.runtime, event_id: 'love_particles', data: 0 })
      emitEvent({ event: 'fed', runtime_id: String(a.runtime), type: a.type, item: name })
      const mate = [...animals.values()].find(m => m !== a && m.type === a.type && m.inLove)
      if (mate) {
        session.later(BABY_AFTER_MS, () => {
          for (const p of [a, mate]) { p.inLove = false; p.bred = true; setFlags(p, { inlove: false }) }
          const at = { x: (a.position.x + mate.position.x) / 2, y: a.position.y, z: (a.position.z + mate.position.z) / 2 }
          const baby = addAnimal(a.type, at, true)
          emitEvent({ event: 'bred', type: a.type, parents: [String(a.runtime), String(mate.runtime)], baby: String(baby.runtime) })
        })
      }
      return true
    }
    if (name === 'bucket' && (a.type === 'cow' || a.type === 'mooshroom' || a.type === 'goat')) {
      if (a.baby) return refuse('a calf gives no milk')
      const slot = api.s.held
      if (held.count === 1) {
        api.s.inv[slot] = api.stack('milk_bucket', 1)
        api.sendSlot('inventory', slot, api.s.inv[slot])
      } else {
        spend(held)
        const free = api.s.inv.findIndex(x => !x)
        if (free >= 0) { api.s.inv[free] = api.stack('milk_bucket', 1); api.sendSlot('inventory', free, api.s.inv[free]) }
      }
      emitEvent({ event: 'milked', runtime_id: String(a.runtime), slot })
      return true
    }
    if (name === 'shears' && a.type === 'sheep') {
      if (a.baby || a.sheared) return refuse(a.baby ? 'a lamb has no wool' : 'already sheared')
      a.sheared = true
      setFlags(a, { sheared: true })
      const n = rand(1, 3)
      for (let i = 0; i < n; i++) api.spawnItem('white_wool', 1, { x: a.position.x, y: a.position.y + 0.5, z: a.position.z }, 'shear')
      held.damage += 1
      api.sendSlot('inventory', api.s.held, held)
      emitEvent({ event: 'sheared', runtime_id: String(a.runtime), wool: n })
      return true
    }
    return refuse(`${name || 'the hand'} does nothing to a ${a.type}`)
  }

  return survival.scenario(session, deps, ext)
}

module.exports = { scenario, FIELD, SOIL_Y, START_INVENTORY, ANIMALS }
