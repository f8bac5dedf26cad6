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
// Overrides where the real client's collision differs from minecraft-data are applied here and
// listed in OVERRIDES (checked against real-client recordings, tests/vectors/physics/SOURCE.md).
'use strict'
const fs = require('fs')
const path = require('path')

const mcDataRoot = path.join(path.dirname(require.resolve('minecraft-data/package.json')), 'minecraft-data', 'data')
const mcDataVersion = require('minecraft-data/package.json').version

// name -> function(boxes of one state) -> boxes the client collides with. None needed so far: the
// recordings' blocks (stone, slabs, stairs, fences, ladders, soul sand, honey, ice, slime, liquids,
// vines, scaffolding, cobweb, powder snow, berry bushes) all agree with minecraft-data.
const OVERRIDES = {}

function generate (gameVersion) {
  const dataPaths = JSON.parse(fs.readFileSync(path.join(mcDataRoot, 'dataPaths.json'), 'utf8'))
  const paths = dataPaths.bedrock[gameVersion]
  if (!paths) throw new Error(`minecraft-data@${mcDataVersion} does not know bedrock ${gameVersion}`)
  const read = (key, file) => JSON.parse(fs.readFileSync(path.join(mcDataRoot, paths[key], file), 'utf8'))
  const blocks = read('blocks', 'blocks.json')
  const collision = read('blockCollisionShapes', 'blockCollisionShapes.json')

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
    const override = OVERRIDES[b.name] || (boxes => boxes)
    const perState = ids.map(id => indexOf(override(collision.shapes[String(id)] || [])))
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
