#!/usr/bin/env node
// Generates data/bedrock/<game version>/shapes.json: the collision boxes of every block state, from
// minecraft-data's blockCollisionShapes.json (and blocks.json for the palette order) of the data
// directory that minecraft-data's dataPaths.json assigns to the game version.
//
// Usage: NODE_PATH=<dir containing minecraft-data> node data/gen-shapes.js <game version>...
// Called by data/refresh.sh for every version in data/versions.txt.
//
// Output format (read by plugins/physics/src/shapes.rs), one block per line for readable diffs:
//   { "format": 1, "game_version": "1.26.45", "source": "minecraft-data@X bedrock/1.26.40",
//     "shapes": [ [ [minX,minY,minZ,maxX,maxY,maxZ], ... ], ... ],
//     "blocks": [ ["minecraft:stone", 1, 1], ["minecraft:stone_stairs", 8, [2, 3, ...]], ... ] }
// - `shapes`: the distinct shapes, each a list of boxes in block-local coordinates ([] = none).
// - `blocks`: every block in palette order (the order of data/bedrock/<ver>/blocks.json: by first
//   state id): its name, its number of states, and one shape index for all of them or one per state.
// Overrides where the real client's collision differs from minecraft-data are applied here (see
// overrideFor below).
'use strict'
const fs = require('fs')
const path = require('path')

const mcDataRoot = path.join(path.dirname(require.resolve('minecraft-data/package.json')), 'minecraft-data', 'data')
const mcDataVersion = require('minecraft-data/package.json').version

// Overrides, by block name: function(boxes of one state, the state's properties) -> the boxes the
// client collides with.
//
// - Doors: minecraft-data gives every door state the box of its first state (closed, facing
//   south: the plate on the west side), whatever its direction, hinge and open bit. The client's
//   door is a plate 0.1825 thick (minecraft-data's thickness) on the side its state says. The
//   rule, as df-mc/dragonfly's door model has it: the door faces its cardinal direction turned a
//   quarter to the left (south -> east, west -> south, north -> west, east -> north); closed,
//   the plate lies on the side away from that facing; open, on the side a quarter turn from it
//   (to the left of the facing with the hinge bit, to the right without). This gives back
//   minecraft-data's box for the first state.
// The recordings' blocks (stone, slabs, stairs, fences, ladders, soul sand, honey, ice, slime,
// liquids, vines, scaffolding, cobweb, powder snow, berry bushes) all agree with minecraft-data
// (plugins/physics/tests/shapes.rs checks it), so they need none.
const DOOR_THICKNESS = 0.1825
// Plates on the side away from each horizontal face: the face's box side moved in by 1 - t.
const PLATE_AWAY_FROM = {
  east: [0, 0, 0, DOOR_THICKNESS, 1, 1],
  west: [1 - DOOR_THICKNESS, 0, 0, 1, 1, 1],
  south: [0, 0, 0, 1, 1, DOOR_THICKNESS],
  north: [0, 0, 1 - DOOR_THICKNESS, 1, 1, 1]
}
const LEFT_OF = { north: 'west', west: 'south', south: 'east', east: 'north' }
const RIGHT_OF = { north: 'east', east: 'south', south: 'west', west: 'north' }
// Older versions carry the direction as an int: 0 east, 1 south, 2 west, 3 north (the facing).
const FACING_OF_DIRECTION = ['east', 'south', 'west', 'north']
function doorBoxes (boxes, states) {
  const value = key => states[key] && states[key].value
  let facing
  if (value('minecraft:cardinal_direction') !== undefined) facing = LEFT_OF[value('minecraft:cardinal_direction')]
  else if (value('direction') !== undefined) facing = FACING_OF_DIRECTION[value('direction') & 3]
  if (!facing) return boxes
  let side = facing
  if (value('open_bit')) side = value('door_hinge_bit') ? LEFT_OF[facing] : RIGHT_OF[facing]
  return [PLATE_AWAY_FROM[side].map(v => Math.fround(v) === v ? v : Number(Math.fround(v).toPrecision(8)))]
}
function overrideFor (name) {
  if (/(^|_)door$/.test(name) && !name.endsWith('trapdoor')) return doorBoxes
  return null
}

function generate (gameVersion) {
  const dataPaths = JSON.parse(fs.readFileSync(path.join(mcDataRoot, 'dataPaths.json'), 'utf8'))
  const paths = dataPaths.bedrock[gameVersion]
  if (!paths) throw new Error(`minecraft-data@${mcDataVersion} does not know bedrock ${gameVersion}`)
  const read = (key, file) => JSON.parse(fs.readFileSync(path.join(mcDataRoot, paths[key], file), 'utf8'))
  const blocks = read('blocks', 'blocks.json')
  const collision = read('blockCollisionShapes', 'blockCollisionShapes.json')
  const states = read('blockStates', 'blockStates.json')

  blocks.sort((a, b) => a.minStateId - b.minStateId)
  const shapeIndex = new Map()
  const shapes = []
  const indexOf = boxes => {
    const key = JSON.stringify(boxes)
    if (!shapeIndex.has(key)) {
      shapeIndex.set(key, shapes.length)
      shapes.push(boxes)
    }
    return shapeIndex.get(key)
  }
  const lines = []
  for (const b of blocks) {
    const count = b.maxStateId - b.minStateId + 1
    const ref = collision.blocks[b.name]
    if (ref === undefined) throw new Error(`no collision shape for ${b.name}`)
    const ids = Array.isArray(ref) ? ref : new Array(count).fill(ref)
    if (ids.length !== count) throw new Error(`${b.name}: ${ids.length} shapes for ${count} states`)
    const override = overrideFor(b.name) || (boxes => boxes)
    const perState = ids.map((id, i) => indexOf(override(collision.shapes[String(id)] || [], states[b.minStateId + i].states)))
    const same = perState.every(i => i === perState[0])
    lines.push(JSON.stringify([`minecraft:${b.name}`, count, same ? perState[0] : perState]))
  }
  const source = `minecraft-data@${mcDataVersion} ${paths.blockCollisionShapes}`
  const head = `{"format":1,"game_version":${JSON.stringify(gameVersion)},"source":${JSON.stringify(source)},\n"shapes":${JSON.stringify(shapes)},\n"blocks":[\n`
  const out = path.join(__dirname, 'bedrock', gameVersion, 'shapes.json')
  fs.mkdirSync(path.dirname(out), { recursive: true })
  fs.writeFileSync(out, head + lines.join(',\n') + '\n]}\n')
  console.log(`bedrock ${gameVersion}: ${blocks.length} blocks, ${shapes.length} distinct shapes -> ${path.relative(process.cwd(), out)}`)
}

const versions = process.argv.slice(2)
if (versions.length === 0) {
  console.error('usage: node data/gen-shapes.js <game version>...')
  process.exit(2)
}
versions.forEach(generate)
