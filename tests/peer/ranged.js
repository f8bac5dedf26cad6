// clawcraft test peer: the `ranged` scenario — buckets, falls and the bow on the server side, on top of the survival
// scenario (survival.js). See README.md "Ranged scenario" for what it models and what it simplifies.
//
// Written from Bedrock servers' rules, independently of the bot: buckets as dragonfly's item/bucket.go rules them
// (only a source fills a bucket; a filled bucket pours into the clicked block when it can hold liquid, else into the
// cell across the clicked face), the bow as dragonfly's item/bow.go and PocketMine's Bow rule it (force from the draw
// time, one arrow taken, the bow worn by one), the arrow's flight as their arrow entities move it (gravity 0.05,
// drag 0.01 a tick), fall damage as minecraft.wiki "Damage#Fall damage" gives it.
'use strict'

const survival = require('./survival.js')

const START_INVENTORY = {
  0: ['bucket', 2],
  1: ['water_bucket', 1],
  2: ['bow', 1],
  3: ['bread', 4],
  9: ['arrow', 8],
  10: ['lava_bucket', 1]
}
// Liquids put into the survival map at spawn: sources to fill from, and a flowing cell that is no source.
const LIQUIDS = [
  { x: 2, y: -61, z: -1, name: 'water', depth: 0, tag: 'water_source' },
  { x: -2, y: -61, z: -1, name: 'lava', depth: 0, tag: 'lava_source' },
  { x: 1, y: -61, z: 2, name: 'water', depth: 3, tag: 'flowing_water' }
]
// The bow (dragonfly item/bow.go, PocketMine Bow::onReleaseUsing): force = min((f² + 2f) / 3, 1) with f = ticks / 20;
// no shot under MIN_DRAW ticks (PocketMine 5, dragonfly 3: the stricter one) or below 0.1 force.
const MIN_DRAW = 5
const ARROW_SPEED = 3 // blocks a tick at full force (PocketMine force × 3; dragonfly writes force × 5 — see README)
const ARROW_GRAVITY = 0.05
const ARROW_DRAG = 0.01
const ARROW_HALF = 0.125 // the arrow's box is 0.25 wide
const ARROW_BASE_DAMAGE = 2 // damage = ⌈speed × 2⌉ (dragonfly entity/arrow.go damage())
const ARROW_LIFE = 200 // ticks before an arrow in the air is removed
// Hit boxes (minecraft-data entities.json width × height).
const BOX = { zombie: [0.6, 1.9], husk: [0.6, 1.9], skeleton: [0.6, 1.99], pig: [0.9, 0.9], cow: [0.9, 1.3] }
const DEFAULT_BOX = [0.6, 1.8]
const SAFE_FALL = 3 // blocks fallen without damage; then one damage a block (rounded up)

function scenario (session, deps) {
  const { emitEvent } = deps
  let api = null
  const st = { health: 20, draw: null, arrows: [], fall: 0, prevFeetY: null, walkers: new Map() }
  const round2 = (v) => Math.round(v * 100) / 100
  const bare = (n) => String(n || '').toLowerCase().replace(/^minecraft:/, '')

  const sendHealth = () => session.write('update_attributes', {
    runtime_entity_id: BigInt(session.runtimeId),
    attributes: [deps.attribute('minecraft:health', 0, 20, st.health, 20)],
    tick: 0n
  })
  const isLiquid = (b) => b.name === 'water' || b.name === 'lava' || b.name === 'flowing_water' || b.name === 'flowing_lava'
  const liquidOf = (b) => b.name.endsWith('water') ? 'water' : b.name.endsWith('lava') ? 'lava' : null
  const solid = (b) => b.name !== 'air' && !isLiquid(b)
  const FACE = [[0, -1, 0], [0, 1, 0], [0, 0, -1], [0, 0, 1], [-1, 0, 0], [1, 0, 0]]

  // --- buckets -----------------------------------------------------------------------------------------------------------
  function refuse (pos, why, held) {
    const b = api.blockAt(pos)
    api.setBlock(pos, b.name, b.states)
    api.sendSlot('inventory', api.s.held, held)
    emitEvent({ event: 'bucket_refused', pos, why })
    return true
  }
  // Gives `name` for one item of the held stack: the held slot becomes it when the stack was one, else the stack
  // shrinks and it goes to the first free slot. Returns the slot it went to.
  function swapHeld (held, name) {
    const slot = api.s.held
    if (held.count === 1) {
      api.s.inv[slot] = api.stack(name, 1)
      api.sendSlot('inventory', slot, api.s.inv[slot])
      return slot
    }
    held.count -= 1
    api.sendSlot('inventory', slot, held)
    // a filled bucket stacks to 1, an empty one to 16
    const max = name === 'bucket' ? 16 : 1
    let to = api.s.inv.findIndex(it => it && it.name === name && it.count < max)
    if (to >= 0) api.s.inv[to].count += 1
    else {
      to = api.s.inv.findIndex(it => !it)
      if (to < 0) return -1
      api.s.inv[to] = api.stack(name, 1)
    }
    api.sendSlot('inventory', to, api.s.inv[to])
    return to
  }
  function onClickBlock (d, held, clicked) {
    const name = held?.name || ''
    const pos = d.block_position
    if (name === 'bucket') {
      if (!isLiquid(clicked)) return refuse(pos, `${clicked.name} is not a liquid`, held)
      if ((clicked.states.liquid_depth || 0) !== 0) return refuse(pos, 'not a source', held)
      const liquid = liquidOf(clicked)
      api.setBlock(pos, 'air')
      const slot = swapHeld(held, `${liquid}_bucket`)
      emitEvent({ event: 'bucket_filled', pos, liquid, slot, buckets_left: count('bucket') })
      return true
    }
    if (name === 'water_bucket' || name === 'lava_bucket') {
      const liquid = name.replace('_bucket', '')
      const n = FACE[d.face] || FACE[1]
      const across = { x: pos.x + n[0], y: pos.y + n[1], z: pos.z + n[2] }
      const into = !solid(clicked) ? pos : !solid(api.blockAt(across)) ? across : null
      if (!into) return refuse(across, 'no room for the liquid', held)
      api.setBlock(into, liquid, { liquid_depth: 0 })
      const slot = swapHeld(held, 'bucket')
      emitEvent({ event: 'bucket_emptied', pos: into, liquid, slot, feet: api.feet(), tick: Number(api.s.tick) })
      return true
    }
    return false
  }
  const count = (name) => api.s.inv.reduce((n, it) => n + (it && it.name === name ? it.count : 0), 0)

  // --- falls -------------------------------------------------------------------------------------------------------------
  // Per input: the distance fallen grows while the feet go down, is forgiven in water, and on landing on a block's top
  // costs ⌈distance − 3⌉ health.
  function trackFall () {
    const f = api.feet()
    const prev = st.prevFeetY
    st.prevFeetY = f.y
    if (prev === null) return
    const dy = prev - f.y
    if (dy > 1e-4) st.fall += dy
    else if (dy < -1e-4) st.fall = 0
    const cell = { x: Math.floor(f.x), y: Math.floor(f.y + 1e-3), z: Math.floor(f.z) }
    if (liquidOf(api.blockAt(cell)) === 'water') {
      if (st.fall > 1) emitEvent({ event: 'fall_broken', by: 'water', distance: round2(st.fall), cell, tick: Number(api.s.tick) })
      st.fall = 0
      return
    }
    const top = Math.round(f.y)
    const onTop = Math.abs(f.y - top) < 0.01 && solid(api.blockAt({ x: cell.x, y: top - 1, z: cell.z }))
    if (!onTop) return
    const distance = st.fall
    st.fall = 0
    if (distance <= 1) return
    const damage = Math.max(0, Math.ceil(distance - SAFE_FALL - 1e-9))
    if (damage > 0) {
      st.health = Math.max(0, st.health - damage)
      session.write('entity_event', { runtime_entity_id: BigInt(session.runtimeId), event_id: 'hurt_animation', data: 0 })
      sendHealth()
    }
    emitEvent({ event: 'landed', distance: round2(distance), damage, health: st.health, tick: Number(api.s.tick) })
  }

  // --- the bow -----------------------------------------------------------------------------------------------------------
  function onClickAir (held) {
    if (held.name !== 'bow') return false
    if (count('arrow') === 0) {
      emitEvent({ event: 'bow_refused', why: 'no arrows' })
      return true
    }
    st.draw = { start: api.s.tick, slot: api.s.held }
    emitEvent({ event: 'bow_drawn', tick: Number(api.s.tick) })
    return true
  }
  function onRelease (d, held) {
    if (!st.draw) return false
    const draw = st.draw
    st.draw = null
    if (held?.name !== 'bow' || api.s.held !== draw.slot) {
      emitEvent({ event: 'bow_released', shot: false, why: 'the bow is not in hand' })
      return true
    }
    const ticks = Number(api.s.tick - draw.start)
    const f = ticks / 20
    const force = Math.min((f * f + 2 * f) / 3, 1)
    if (ticks < MIN_DRAW || force < 0.1) {
      emitEvent({ event: 'bow_released', shot: false, why: 'drawn too briefly', ticks, force: round2(force) })
      return true
    }
    const slot = api.s.inv.findIndex(it => it && it.name === 'arrow')
    if (slot < 0) {
      emitEvent({ event: 'bow_released', shot: false, why: 'no arrows', ticks })
      return true
    }
    const arrow = api.s.inv[slot]
    arrow.count -= 1
    if (arrow.count <= 0) api.s.inv[slot] = null
    api.sendSlot('inventory', slot, api.s.inv[slot])
    held.damage += 1
    api.sendSlot('inventory', api.s.held, held)
    const yaw = api.s.yaw * Math.PI / 180
    const pitch = api.s.pitch * Math.PI / 180
    const speed = force * ARROW_SPEED
    const vel = { x: -Math.sin(yaw) * Math.cos(pitch) * speed, y: -Math.sin(pitch) * speed, z: Math.cos(yaw) * Math.cos(pitch) * speed }
    const pos = { ...api.s.eye }
    const rid = api.s.nextEntity++
    session.write('add_entity', {
      unique_id: rid, runtime_id: rid, entity_type: 'minecraft:arrow', position: pos, velocity: vel,
      pitch: api.s.pitch, yaw: api.s.yaw, head_yaw: api.s.yaw, body_yaw: api.s.yaw, attributes: [], metadata: [],
      properties: { ints: [], floats: [] }, links: []
    })
    st.arrows.push({ rid, pos, vel, age: 0 })
    emitEvent({
      event: 'arrow_shot', runtime_id: String(rid), ticks, force: round2(force), yaw: round2(api.s.yaw), pitch: round2(api.s.pitch),
      arrows_left: count('arrow'), position: pos, velocity: vel, tick: Number(api.s.tick)
    })
    return true
  }
  // A held-slot change ends the use without releasing it (dragonfly Player.SetHeldSlot clears usingItem): a drawn bow
  // shoots nothing, keeps its arrows, and a later item_release finds no draw.
  function onHeldChange (from, to) {
    if (!st.draw) return
    const ticks = Number(api.s.tick - st.draw.start)
    st.draw = null
    emitEvent({ event: 'bow_cancelled', ticks, from, to, arrows_left: count('arrow'), tick: Number(api.s.tick) })
  }
  // Where the segment a → b first enters the box [lo, hi] (as a fraction of the way), or null.
  function segmentHits (a, b, lo, hi) {
    let t0 = 0
    let t1 = 1
    for (const k of ['x', 'y', 'z']) {
      const d = b[k] - a[k]
      if (Math.abs(d) < 1e-12) {
        if (a[k] < lo[k] || a[k] > hi[k]) return null
        continue
      }
      let u = (lo[k] - a[k]) / d
      let v = (hi[k] - a[k]) / d
      if (u > v) [u, v] = [v, u]
      t0 = Math.max(t0, u)
      t1 = Math.min(t1, v)
      if (t0 > t1) return null
    }
    return t0
  }
  function hurtMob (m, damage) {
    m.health = Math.max(0, m.health - damage)
    session.write('entity_event', { runtime_entity_id: m.runtime, event_id: 'hurt_animation', data: 0 })
    session.write('update_attributes', { runtime_entity_id: m.runtime, attributes: [deps.attribute('minecraft:health', 0, m.max || 10, m.health, m.max || 10)], tick: 0n })
    if (m.health <= 0) {
      m.alive = false
      st.walkers.delete(String(m.runtime))
      session.write('entity_event', { runtime_entity_id: m.runtime, event_id: 'death_animation', data: 0 })
      session.later(500, () => session.write('remove_entity', { entity_id_self: m.unique }))
    }
  }
  // Per input: each arrow moves its velocity (hitting the first mob box on the way), then drag and gravity act.
  function stepArrows () {
    for (const a of [...st.arrows]) {
      const next = { x: a.pos.x + a.vel.x, y: a.pos.y + a.vel.y, z: a.pos.z + a.vel.z }
      let hit = null
      for (const m of api.s.monsters.values()) {
        if (!m.alive) continue
        const [w, h] = BOX[m.type] || DEFAULT_BOX
        const lo = { x: m.position.x - w / 2 - ARROW_HALF, y: m.position.y - ARROW_HALF, z: m.position.z - w / 2 - ARROW_HALF }
        const hi = { x: m.position.x + w / 2 + ARROW_HALF, y: m.position.y + h + ARROW_HALF, z: m.position.z + w / 2 + ARROW_HALF }
        const t = segmentHits(a.pos, next, lo, hi)
        if (t !== null && (!hit || t < hit.t)) hit = { m, t }
      }
      const remove = () => {
        st.arrows.splice(st.arrows.indexOf(a), 1)
        session.write('remove_entity', { entity_id_self: a.rid })
      }
      if (hit) {
        const speed = Math.hypot(a.vel.x, a.vel.y, a.vel.z)
        const damage = Math.ceil(speed * ARROW_BASE_DAMAGE)
        hurtMob(hit.m, damage)
        const at = { x: round2(a.pos.x + (next.x - a.pos.x) * hit.t), y: round2(a.pos.y + (next.y - a.pos.y) * hit.t), z: round2(a.pos.z + (next.z - a.pos.z) * hit.t) }
        emitEvent({ event: 'arrow_hit', runtime_id: String(a.rid), target: String(hit.m.runtime), type: hit.m.type, damage, health: hit.m.health, at, flight: a.age + 1, tick: Number(api.s.tick) })
        remove()
        continue
      }
      a.pos = next
      a.age += 1
      const cell = { x: Math.floor(a.pos.x), y: Math.floor(a.pos.y), z: Math.floor(a.pos.z) }
      if (solid(api.blockAt(cell)) || a.age > ARROW_LIFE) {
        emitEvent({ event: 'arrow_landed', runtime_id: String(a.rid), position: { x: round2(a.pos.x), y: round2(a.pos.y), z: round2(a.pos.z) }, flight: a.age })
        remove()
        continue
      }
      a.vel = { x: a.vel.x * (1 - ARROW_DRAG), y: a.vel.y * (1 - ARROW_DRAG) - ARROW_GRAVITY, z: a.vel.z * (1 - ARROW_DRAG) }
    }
  }

  // --- walking targets ---------------------------------------------------------------------------------------------------
  const byteAngle = (deg) => Math.round((((deg % 360) + 360) % 360) / 360 * 256) & 255
  function stepWalkers () {
    for (const w of st.walkers.values()) {
      const m = w.mob
      if (!m.alive || w.left <= 0) continue
      w.left -= 1
      m.position.x += w.vx
      m.position.z += w.vz
      const yaw = Math.atan2(-w.vx, w.vz) * 180 / Math.PI
      session.write('move_entity_delta', {
        runtime_entity_id: BigInt(m.runtime), x: m.position.x, y: m.position.y, z: m.position.z,
        rot_x: 0, rot_y: byteAngle(yaw), rot_z: byteAngle(yaw), on_ground: true, force_move: false, force_move_local_entity: false, force_completion: false
      })
    }
  }

  // `/summon_walking <mob> <x> <y> <z> <vx> <vz> [ticks]`: a mob that walks (vx, vz) blocks a tick for `ticks` inputs
  // (default 400), ignoring the player.
  function onCommand (command, word) {
    if (word !== 'summon_walking') return null
    const words = command.replace(/^\//, '').trim().split(/\s+/)
    const type = bare(words[1])
    const [x, y, z, vx, vz] = words.slice(2, 7).map(Number)
    const ticks = words[7] === undefined ? 400 : Number(words[7])
    if (!type || ![x, y, z, vx, vz, ticks].every(Number.isFinite)) {
      return [{ message_id: 'commands.generic.usage', success: false, parameters: ['/summon_walking <mob> <x> <y> <z> <vx> <vz> [ticks]'] }]
    }
    const m = api.spawnMonster(type, { x, y, z })
    st.walkers.set(String(m.runtime), { mob: m, vx, vz, left: ticks })
    emitEvent({ event: 'summoned', type, runtime_id: String(m.runtime), position: m.position, health: m.health, velocity: { x: vx, z: vz } })
    return [{ message_id: 'commands.summon.success', success: true, parameters: [] }]
  }

  const hooks = survival.scenario(session, deps, {
    startInventory: START_INVENTORY,
    registryItems: ['bucket', 'water_bucket', 'lava_bucket', 'bow', 'arrow', 'bread'],
    noStartZombie: true,
    init: (a) => { api = a },
    onClickBlock,
    onClickAir,
    onRelease,
    onHeldChange,
    onTick () {
      trackFall()
      stepWalkers()
      stepArrows()
    },
    onSpawn () {
      for (const l of LIQUIDS) api.setBlock({ x: l.x, y: l.y, z: l.z }, l.name, { liquid_depth: l.depth })
      sendHealth()
      emitEvent({ event: 'ranged_ready', liquids: LIQUIDS, health: st.health })
    }
  })
  const survivalCommand = hooks.onCommand
  hooks.onCommand = (command, word) => onCommand(command, word) || survivalCommand(command, word)
  return hooks
}

module.exports = { scenario, START_INVENTORY, LIQUIDS, ARROW_SPEED, ARROW_GRAVITY, ARROW_DRAG }
