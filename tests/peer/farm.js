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
  9: ['carrot', 4]
}
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
    'beetroot_seeds', 'beetroot', 'bread']

  const ext = {
    startInventory: START_INVENTORY,
    registryItems: items,
    init (a) { api = a },
    onSpawn () {
      for (const [x, z, growth] of FIELD) {
        api.setBlock({ x, y: SOIL_Y, z }, 'farmland', { moisturized_amount: 0 })
        api.setBlock({ x, y: SOIL_Y + 1, z }, 'wheat', { growth })
      }
      emitEvent({ event: 'farm_ready', field: FIELD.map(([x, z, growth]) => ({ x, y: SOIL_Y + 1, z, growth })) })
    },
    onClickBlock (d, held, clicked) {
      const name = held?.name || ''
      if (name.endsWith('_hoe')) return till(d, held, clicked)
      if (SEED_CROP[name]) return plant(d, held, clicked)
      if (name === 'bone_meal') return boneMeal(d, held, clicked)
      return false
    },
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

  return survival.scenario(session, deps, ext)
}

module.exports = { scenario, FIELD, SOIL_Y, START_INVENTORY }
