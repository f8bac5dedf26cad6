// clawcraft test peer: the `combat` and `night` scenarios — fighting and staying alive on Bedrock's rules, on top of
// the survival scenario (survival.js). See README.md "Combat scenario" for what is modelled and what is simplified.
//
// Written from Bedrock's documented behaviour (minecraft.wiki's Bedrock Edition values: "Damage", "Armor",
// "Zombie", "Hunger", "Health"), independently of the bot. minecraft-data's Bedrock data has the mobs' hit boxes
// but not their health or damage, nor weapons' damage or armour's defence, so those are tabled here.
'use strict'

const survival = require('./survival.js')

// Mobs the scenario animates: health, melee damage (normal difficulty), speed (blocks per tick), melee reach (blocks,
// feet to feet), ticks between two attacks, follow range.
const MOBS = {
  zombie: { health: 20, damage: 3, speed: 0.1, reach: 1.6, interval: 20, follow: 16 },
  husk: { health: 20, damage: 3, speed: 0.1, reach: 1.6, interval: 20, follow: 16 }
}
const DEFAULT_MOB = { health: 20, damage: 2, speed: 0.1, reach: 1.6, interval: 20, follow: 16 }
// Bedrock attack damage by tier (wooden, golden, stone, iron, diamond, netherite).
const TIERS = ['wooden', 'golden', 'stone', 'iron', 'diamond', 'netherite']
const WEAPONS = {
  sword: [5, 5, 6, 7, 8, 9],
  axe: [4, 4, 5, 6, 7, 8],
  pickaxe: [2, 2, 3, 4, 5, 6],
  shovel: [2, 2, 3, 4, 5, 6],
  hoe: [2, 2, 3, 4, 5, 6]
}
const FIST = 1
// Bedrock defence points: material → [helmet, chestplate, leggings, boots].
const ARMOUR = {
  leather: [1, 3, 2, 1], golden: [2, 5, 3, 1], chainmail: [2, 5, 4, 1], iron: [2, 6, 5, 2], diamond: [3, 8, 6, 3], netherite: [3, 8, 6, 3]
}
const INVULNERABLE_TICKS = 10 // after a hit, an entity takes only a stronger hit, as the difference
const CRIT = 1.5 // a hit while falling
const REACH = 4 // the player's attack reach the peer accepts: eye to the middle of the mob's box (3 + leniency)
const KNOCKBACK = 0.4 // blocks a hit pushes a mob away (simplified: one step, no velocity)
const REGEN_TICKS = 80 // hunger ≥ 18: one health point every 4 s
const STARVE_TICKS = 80 // hunger 0: one damage every 4 s, down to 1 health (normal difficulty)
const EXHAUST = { attack: 0.1, hurt: 0.1, heal: 6 } // exhaustion; 4 exhaustion cost one saturation, then one hunger
const MOB_HEIGHT = 1.8
const START_INVENTORY = {
  0: ['wooden_pickaxe', 1],
  1: ['bread', 5],
  2: ['cooked_beef', 3],
  4: ['iron_sword', 1],
  7: ['wooden_axe', 1]
}
const NIGHT_ZOMBIES = [{ x: 8.5, y: -60, z: 0.5 }, { x: -7.5, y: -60, z: 4.5 }]
const NIGHT_DELAY_MS = 1000

function scenario (session, deps, opts = {}) {
  const { emitEvent } = deps
  let api = null
  const s2 = { health: 20, exhaustion: 0, lastHurt: -1e9, lastHurtDamage: 0, regen: 0, starve: 0, prevY: null, y: null, dead: false }

  const bare = (n) => String(n || '').toLowerCase().replace(/^minecraft:/, '')
  const weaponDamage = (item) => {
    if (!item) return FIST
    const [tier, kind] = item.name.split('_')
    const t = TIERS.indexOf(tier)
    return t >= 0 && WEAPONS[kind] ? WEAPONS[kind][t] : FIST
  }
  const armourPoints = () => api.s.armor.reduce((sum, it, slot) => {
    if (!it) return sum
    const material = it.name.slice(0, it.name.lastIndexOf('_'))
    return sum + (ARMOUR[material] ? ARMOUR[material][slot] : 0)
  }, 0)
  const round2 = (v) => Math.round(v * 100) / 100
  const sendVitals = () => session.write('update_attributes', {
    runtime_entity_id: BigInt(session.runtimeId),
    attributes: [
      deps.attribute('minecraft:health', 0, 20, s2.health, 20),
      deps.attribute('minecraft:player.hunger', 0, 20, api.s.hunger, 20),
      deps.attribute('minecraft:player.saturation', 0, 20, api.s.saturation, 20)
    ],
    tick: 0n
  })
  const exhaust = (x) => {
    s2.exhaustion += x
    while (s2.exhaustion >= 4) {
      s2.exhaustion -= 4
      if (api.s.saturation > 0) api.s.saturation = Math.max(0, api.s.saturation - 1)
      else api.s.hunger = Math.max(0, api.s.hunger - 1)
    }
  }

  // Falling, as the server sees the player: the eye went down since the input before, and the feet are not on a
  // block's top.
  const falling = () => {
    if (s2.prevY === null || s2.y === null || !(s2.y < s2.prevY - 1e-4)) return false
    const f = api.feet()
    const top = Math.round(f.y)
    const onTop = Math.abs(f.y - top) < 0.01 && api.blockAt({ x: Math.floor(f.x), y: top - 1, z: Math.floor(f.z) }).name !== 'air'
    return !onTop
  }

  function spawnMob (type, position) {
    const m = api.spawnMonster(type, position)
    const rules = MOBS[type] || DEFAULT_MOB
    Object.assign(m, { health: rules.health, max: rules.health, rules, ai: true, lastHurt: -1e9, lastDamage: 0, nextAttack: 0n })
    return m
  }
  // Angles go as bytes (256 = 360°).
  const byteAngle = (deg) => Math.round((((deg % 360) + 360) % 360) / 360 * 256) & 255
  const moveMob = (m, yaw) => session.write('move_entity_delta', {
    runtime_entity_id: BigInt(m.runtime), x: m.position.x, y: m.position.y, z: m.position.z,
    rot_x: 0, rot_y: byteAngle(yaw), rot_z: byteAngle(yaw), on_ground: true, force_move: false, force_move_local_entity: false, force_completion: false
  })

  function hurtPlayer (m) {
    const tick = Number(api.s.tick)
    let dmg = m.rules.damage * (1 - Math.min(20, armourPoints()) * 0.04)
    if (tick - s2.lastHurt < INVULNERABLE_TICKS) {
      if (dmg <= s2.lastHurtDamage) return
      const more = dmg - s2.lastHurtDamage
      s2.lastHurtDamage = dmg
      dmg = more
    } else {
      s2.lastHurt = tick
      s2.lastHurtDamage = dmg
    }
    s2.health = Math.max(0, round2(s2.health - dmg))
    exhaust(EXHAUST.hurt)
    session.write('entity_event', { runtime_entity_id: BigInt(session.runtimeId), event_id: 'hurt_animation', data: 0 })
    sendVitals()
    emitEvent({ event: 'player_hurt', by: m.type, runtime_id: String(m.runtime), damage: round2(dmg), health: s2.health, armour: armourPoints(), tick })
    if (s2.health <= 0) {
      s2.dead = true
      session.write('entity_event', { runtime_entity_id: BigInt(session.runtimeId), event_id: 'death_animation', data: 0 })
      emitEvent({ event: 'player_died', by: m.type })
    }
  }

  function onAttack (d) {
    const m = api.s.monsters.get(String(d.entity_runtime_id))
    if (!m || !m.alive || !m.ai) return false // survival's own rules for its own zombie
    const tick = Number(api.s.tick)
    const mid = { x: m.position.x, y: m.position.y + MOB_HEIGHT / 2, z: m.position.z }
    const distance = round2(api.dist(api.s.eye, mid))
    if (distance > REACH) {
      emitEvent({ event: 'attack_refused', why: 'out of reach', distance })
      return true
    }
    const held = api.s.inv[api.s.held]
    if (d.hotbar_slot !== api.s.held) {
      emitEvent({ event: 'attack_refused', why: 'held slot mismatch', slot: d.hotbar_slot, held: api.s.held })
      return true
    }
    const crit = falling()
    const dmg = weaponDamage(held) * (crit ? CRIT : 1)
    let applied
    if (tick - m.lastHurt < INVULNERABLE_TICKS) {
      if (dmg <= m.lastDamage) {
        emitEvent({ event: 'attack_ignored', why: 'invulnerable', runtime_id: String(m.runtime), since: tick - m.lastHurt, damage: dmg })
        return true
      }
      applied = dmg - m.lastDamage
      m.lastDamage = dmg
    } else {
      applied = dmg
      m.lastHurt = tick
      m.lastDamage = dmg
    }
    const before = m.health
    m.health = Math.max(0, round2(m.health - applied))
    exhaust(EXHAUST.attack)
    session.write('entity_event', { runtime_entity_id: m.runtime, event_id: 'hurt_animation', data: 0 })
    if (crit) session.write('animate', { action_id: 'critical_hit', runtime_entity_id: m.runtime, data: 0, has_swing_source: false })
    session.write('update_attributes', { runtime_entity_id: m.runtime, attributes: [deps.attribute('minecraft:health', 0, m.max, m.health, m.max)], tick: 0n })
    // `damage`: the health it lost; `hit`: the hit's strength after invulnerability (more than the health left on a kill)
    emitEvent({ event: `${m.type}_hurt`, runtime_id: String(m.runtime), damage: round2(before - m.health), hit: applied, crit, health: m.health, tool: held?.name || null, tick })
    if (m.health <= 0) {
      m.alive = false
      session.write('entity_event', { runtime_entity_id: m.runtime, event_id: 'death_animation', data: 0 })
      session.later(500, () => session.write('remove_entity', { entity_id_self: m.unique }))
      emitEvent({ event: `${m.type}_killed`, runtime_id: String(m.runtime), tick })
    } else {
      const f = api.feet()
      const dx = m.position.x - f.x
      const dz = m.position.z - f.z
      const d = Math.hypot(dx, dz) || 1
      m.position.x = round2(m.position.x + dx / d * KNOCKBACK)
      m.position.z = round2(m.position.z + dz / d * KNOCKBACK)
      moveMob(m, Math.atan2(dx, -dz) * 180 / Math.PI)
    }
    return true
  }

  // Each player input: the mobs chase and hit, health regenerates or starves.
  function onTick () {
    s2.prevY = s2.y
    s2.y = api.s.eye.y
    if (s2.dead) return
    const f = api.feet()
    const tick = api.s.tick
    for (const m of api.s.monsters.values()) {
      if (!m.alive || !m.ai) continue
      const dx = f.x - m.position.x
      const dz = f.z - m.position.z
      const d = Math.hypot(dx, dz)
      if (d > m.rules.follow) continue
      if (d > m.rules.reach * 0.8) {
        const step = Math.min(m.rules.speed, d - m.rules.reach * 0.8)
        m.position.x += dx / d * step
        m.position.z += dz / d * step
        moveMob(m, Math.atan2(-dx, dz) * 180 / Math.PI)
      }
      if (api.dist(f, m.position) <= m.rules.reach && tick >= m.nextAttack) {
        m.nextAttack = tick + BigInt(m.rules.interval)
        hurtPlayer(m)
        if (s2.dead) return
      }
    }
    let changed = false
    if (api.s.hunger >= 18 && s2.health < 20) {
      if (++s2.regen >= REGEN_TICKS) {
        s2.regen = 0
        s2.health = Math.min(20, s2.health + 1)
        exhaust(EXHAUST.heal)
        changed = true
        emitEvent({ event: 'player_regen', health: s2.health, hunger: api.s.hunger, saturation: api.s.saturation })
      }
    } else s2.regen = 0
    if (api.s.hunger <= 0 && s2.health > 1) {
      if (++s2.starve >= STARVE_TICKS) {
        s2.starve = 0
        s2.health -= 1
        changed = true
        emitEvent({ event: 'player_starved', health: s2.health })
      }
    } else s2.starve = 0
    if (changed) sendVitals()
  }

  // `/summon <mob> <x> <y> <z>` spawns an animated mob; `/drop <item> [count]` drops an item at the player's feet.
  function onCommand (command, word) {
    const words = command.replace(/^\//, '').trim().split(/\s+/)
    if (word === 'summon') {
      const type = bare(words[1])
      const [x, y, z] = words.slice(2, 5).map(Number)
      if (!type || ![x, y, z].every(Number.isFinite)) return null
      const m = spawnMob(type, { x, y, z })
      emitEvent({ event: 'summoned', type, runtime_id: String(m.runtime), position: m.position, health: m.health })
      return [{ message_id: 'commands.summon.success', success: true, parameters: [] }]
    }
    if (word === 'drop') {
      const name = bare(words[1])
      const count = Number(words[2] || 1)
      try { api.itemId(name) } catch { return [{ message_id: 'commands.give.item.notFound', success: false, parameters: [name] }] }
      const f = api.feet()
      api.spawnItem(name, count, { x: f.x, y: f.y + 0.25, z: f.z }, 'command')
      return [{ message_id: 'commands.drop.success', success: true, parameters: [name] }]
    }
    return null
  }

  const hooks = survival.scenario(session, deps, {
    startInventory: START_INVENTORY,
    registryItems: ['bread', 'cooked_beef', 'iron_chestplate', 'iron_boots', 'diamond_sword', 'rotten_flesh'],
    noStartZombie: true,
    onAttack,
    onTick,
    init: (a) => { api = a },
    onSpawn: () => {
      sendVitals()
      emitEvent({ event: 'combat_ready', health: s2.health, hunger: api.s.hunger })
      if (opts.night) {
        session.later(NIGHT_DELAY_MS, () => {
          const ids = NIGHT_ZOMBIES.map(p => String(spawnMob('zombie', p).runtime))
          emitEvent({ event: 'night_started', zombies: ids })
        })
      }
    }
  })
  const survivalCommand = hooks.onCommand
  hooks.onCommand = (command, word) => onCommand(command, word) || survivalCommand(command, word)
  return hooks
}

module.exports = { scenario, MOBS, WEAPONS, ARMOUR, START_INVENTORY, NIGHT_ZOMBIES }
