'use strict'
// Movement checking for the test peer: a server-authoritative stand-in.
//
// Each player's authoritative position starts at spawn and is integrated from its PlayerAuthInputs: an input whose
// position is plausible from the last accepted one becomes the new authoritative position; an implausible one is
// rejected with correct_player_move_prediction (the authoritative position, at the input's tick) and the position
// stays. Implausible means:
//   * faster than sprinting: more than 0.2806 blocks horizontally in one tick (5.612 b/s), plus a margin, plus the
//     sprint-jump push (0.2) on a jumping tick;
//   * through solid blocks: the player's box (0.6 x 1.8, shrunk by 0.05) overlaps a full block of the map;
//   * flying: the feet more than 1.3 blocks above the last height the player stood at, or rising faster than a jump
//     (0.42 + margin per tick).
// Corrections are rate-limited (one per 10 ticks) so the inputs already in flight do not each get one; they are still
// rejected. Every input is logged as {"name":"__auth_pos","tick","x","y","z","accepted"[,"reason"]} (feet position
// after the input); every correction is a stdout event {"event":"movement_corrected",...}.
// A `/tp @s x y z` command teleports (move_player mode teleport) and moves the authoritative position.

const EYE_HEIGHT = 1.62
const SPRINT_PER_TICK = 0.2806
const MARGIN = 0.03
const SPRINT_JUMP = 0.2
const JUMP_RISE = 0.42 + 0.05
const MAX_ABOVE_GROUND = 1.3
const CORRECTION_GAP_TICKS = 10

// Full solid cubes of the peer's maps (everything else is not checked: doors, stairs, slabs, fences, plants, liquids).
const SOLID = new Set(['stone', 'dirt', 'grass_block', 'bedrock', 'glass', 'coal_ore', 'iron_ore', 'diamond_ore',
  'deepslate', 'cobblestone', 'oak_planks'])

// network id -> name, for the ids the world can hold (its base layers, map blocks and fills)
function nameIndex (world) {
  if (world._movementNames) return world._movementNames
  const names = new Map()
  const add = (name, states) => { try { names.set(world.stateId(name, states || {}), name.replace(/^minecraft:/, '')) } catch (e) { } }
  add('air', {})
  add('bedrock', { infiniburn_bit: 0 })
  add('dirt', {})
  add('grass_block', {})
  for (const l of world.map?.base_layers || []) add(l.name, l.states)
  for (const b of world.map?.blocks || []) add(b.name, b.states)
  for (const f of world.map?.fills || []) add(f.name, f.states)
  world._movementNames = names
  return names
}

function solidAt (world, x, y, z) {
  const name = nameIndex(world).get(world.blockAt(x, y, z).l0)
  return name !== undefined && SOLID.has(name)
}

// Does the box of a player with feet at p overlap a solid block?
function insideSolid (world, p) {
  const s = 0.3 - 0.05
  const [x0, x1] = [Math.floor(p.x - s), Math.floor(p.x + s)]
  const [y0, y1] = [Math.floor(p.y + 0.05), Math.floor(p.y + 1.8 - 0.05)]
  const [z0, z1] = [Math.floor(p.z - s), Math.floor(p.z + s)]
  for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) for (let z = z0; z <= z1; z++) if (solidAt(world, x, y, z)) return true
  return false
}

// Is there a solid block right under the feet (standing)?
function supported (world, p) {
  const s = 0.3
  const y = Math.floor(p.y - 0.01)
  if (p.y - Math.floor(p.y) > 0.01 && p.y - Math.floor(p.y) < 0.99) return false
  for (const dx of [-s, s]) for (const dz of [-s, s]) if (solidAt(world, Math.floor(p.x + dx), y, Math.floor(p.z + dz))) return true
  return false
}

class Mover {
  constructor (session, feet) {
    this.session = session
    this.pos = { ...feet }
    this.groundY = feet.y
    this.lastCorrectionTick = -Infinity
    this.corrections = 0
    this.accepted = 0
    this.awaitingTeleportAck = false
  }

  // Why `next` (feet) is not a plausible move from the authoritative position, or null.
  check (next, flags) {
    const world = this.session.blockView || this.session.ctx.world // a scenario that changes blocks gives its own view
    const dx = next.x - this.pos.x
    const dz = next.z - this.pos.z
    const flat = Math.sqrt(dx * dx + dz * dz)
    const jumping = flags.includes('jumping') || flags.includes('start_jumping')
    const limit = SPRINT_PER_TICK + MARGIN + (jumping ? SPRINT_JUMP : 0)
    if (flat > limit) return `too fast: ${flat.toFixed(3)} blocks in one tick (limit ${limit.toFixed(3)})`
    if (insideSolid(world, next)) return 'inside a solid block'
    const rise = next.y - this.pos.y
    if (rise > JUMP_RISE) return `rising ${rise.toFixed(3)} blocks in one tick`
    if (next.y - this.groundY > MAX_ABOVE_GROUND) return `flying: ${(next.y - this.groundY).toFixed(2)} blocks above the ground`
    return null
  }

  onInput (p, logLine, emitEvent) {
    const flags = Array.isArray(p.input_data) ? p.input_data : Object.keys(p.input_data || {}).filter(k => p.input_data[k] === true)
    const tick = BigInt(p.tick ?? 0)
    if (this.awaitingTeleportAck) {
      if (!flags.includes('handled_teleport')) return // positions before the acknowledgement are ignored
      this.awaitingTeleportAck = false
    }
    const next = { x: p.position.x, y: p.position.y - EYE_HEIGHT, z: p.position.z }
    const reason = this.check(next, flags)
    if (reason === null) {
      this.pos = next
      this.accepted++
      const world = this.session.blockView || this.session.ctx.world
      if (supported(world, next) || flags.includes('vertical_collision')) this.groundY = next.y
      // Falling lowers the reference too: a fall is never "flying".
      if (next.y < this.groundY) this.groundY = next.y
      logLine({ name: '__auth_pos', tick: tick.toString(), x: next.x, y: next.y, z: next.z, accepted: true, client: this.session.id })
      return
    }
    logLine({ name: '__auth_pos', tick: tick.toString(), x: this.pos.x, y: this.pos.y, z: this.pos.z, accepted: false, reason, client: this.session.id })
    if (Number(tick) - this.lastCorrectionTick < CORRECTION_GAP_TICKS) return
    this.lastCorrectionTick = Number(tick)
    this.corrections++
    const position = { x: this.pos.x, y: this.pos.y + EYE_HEIGHT, z: this.pos.z }
    this.session.write('correct_player_move_prediction', {
      prediction_type: 'player',
      position,
      delta: { x: 0, y: 0, z: 0 },
      rotation: { x: 0, z: 0 },
      angular_velocity: undefined,
      on_ground: true,
      tick
    })
    emitEvent({ event: 'movement_corrected', username: this.session.username, tick: tick.toString(), reason, claimed: next, position: this.pos })
  }

  teleport (feet) {
    this.pos = { ...feet }
    this.groundY = feet.y
    this.awaitingTeleportAck = true
  }
}

// Called by server.js when a player spawns.
function onSpawn (session, feet) {
  session.mover = new Mover(session, feet)
}

function onInput (session, p, logLine, emitEvent) {
  if (!session.mover || !p?.position) return
  session.mover.onInput(p, logLine, emitEvent)
}

// Tells the checker about a teleport the server sent (move_player mode teleport).
function onTeleport (session, eye) {
  if (session.mover) session.mover.teleport({ x: eye.x, y: eye.y - EYE_HEIGHT, z: eye.z })
}

// `/tp @s x y z` (or `/tp x y z`): teleports the sender. Returns the command output entries, or null when the command
// is not a tp.
function onCommand (session, command) {
  const words = command.replace(/^\//, '').trim().split(/\s+/)
  if (words[0]?.toLowerCase() !== 'tp') return null
  const nums = words.slice(1).filter(w => w !== '@s').map(Number)
  if (nums.length < 3 || nums.slice(0, 3).some(n => !Number.isFinite(n))) {
    return [{ message_id: 'commands.generic.usage', success: false, parameters: ['/tp <x> <y> <z>'] }]
  }
  const [x, y, z] = nums
  const position = { x, y: y + EYE_HEIGHT, z }
  session.write('move_player', {
    runtime_id: session.runtimeId,
    position,
    pitch: 0,
    yaw: nums[3] ?? 0,
    head_yaw: nums[3] ?? 0,
    mode: 'teleport',
    on_ground: false,
    ridden_runtime_id: 0,
    teleport: { cause: 'command', source_entity_type: 0 },
    tick: 0n
  })
  onTeleport(session, position)
  return [{ message_id: 'commands.tp.success.coordinates', success: true, parameters: [session.username || '', String(x), String(y), String(z)] }]
}

// `/querytarget @s` (or the sender's name): where the server holds the sender, as vanilla answers it — one
// commands.querytarget.success line whose parameter is a JSON array of {dimension, position (eye level, as vanilla
// reports a player), uniqueId, yRot}. Returns the output entries, or null when the command is not a querytarget.
function queryTarget (session, command) {
  const words = command.replace(/^\//, '').trim().split(/\s+/)
  if (words[0]?.toLowerCase() !== 'querytarget') return null
  const target = words[1] || ''
  const self = target === '@s' || (session.username && target.toLowerCase() === session.username.toLowerCase())
  if (!self || !session.mover) return [{ message_id: 'commands.generic.noTargetMatch', success: false, parameters: [] }]
  const p = session.mover.pos
  const entry = { dimension: 0, position: { x: p.x, y: p.y + EYE_HEIGHT, z: p.z }, uniqueId: String(session.runtimeId ?? 1), yRot: 0 }
  return [{ message_id: 'commands.querytarget.success', success: true, parameters: [JSON.stringify([entry])] }]
}

module.exports = { onSpawn, onInput, onTeleport, onCommand, queryTarget, insideSolid, SPRINT_PER_TICK }
