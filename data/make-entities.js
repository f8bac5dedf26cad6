#!/usr/bin/env node
// Derives data/bedrock/<game version>/entities.json (the entity table of clawcraft-entity) from
// minecraft-data's entities.json of the data directory that minecraft-data's dataPaths.json assigns
// to the game version (every 1.26 version uses bedrock/1.21.80), plus entities.SOURCE.md.
//
// Usage: NODE_PATH=<dir containing minecraft-data> node data/make-entities.js <game version>...
// Called by data/refresh.sh for every version in data/versions.txt.
//
// Output: one object per entity, sorted by identifier:
//   {"id": "minecraft:zombie", "name": "zombie", "displayName": "Zombie", "category": "hostile",
//    "height": 1.95, "width": 0.6, "internalId": 32}
// `internalId` is Bedrock's numeric actor type (minecraft-data's internalId; null for the
// ADDITIONS, whose numbers the source does not list).
//
// Classification rule (hand-reviewed against the vanilla behaviour of each mob):
//   1. `player` → player, `item` → item.
//   2. NEUTRAL below → neutral: mobs that only attack when provoked (wolf, enderman, iron golem,
//      zombified piglin, polar bear, llama, bee, dolphin, panda, goat, trader llama).
//      Spider, cave spider and piglin stay hostile: they attack at night / in the dark / when the
//      player wears no gold, which is the situation a bot is in, so `danger` should fire.
//   3. PASSIVE_OVERRIDES → passive: minecraft-data lists skeleton/zombie horses as hostile, but
//      they never attack.
//   4. minecraft-data category "Hostile mobs" → hostile, except evocation_fang (a spell effect,
//      type "other") → other.
//   5. "Passive mobs" → passive.
//   6. Everything else (projectiles, vehicles, immobile, unknown) → other.
//   minecraft-data repeats some names for variants (llama = Trader Llama, zombie = Giant,
//   arrow = Spectral Arrow, evocation_illager = Illusioner, minecart ×3, armor_stand ×2): the
//   first entry of a name wins. ADDITIONS are mobs newer than the 1.21.80 list (classified by the
//   same rule) so their names resolve too.
'use strict'
const fs = require('fs')
const path = require('path')

const NEUTRAL = new Set([
  'wolf', 'enderman', 'iron_golem', 'zombie_pigman', 'polar_bear', 'llama', 'trader_llama', 'bee',
  'dolphin', 'panda', 'goat'
])
const PASSIVE_OVERRIDES = new Set(['skeleton_horse', 'zombie_horse'])
const OTHER_OVERRIDES = new Set(['evocation_fang'])
const ADDITIONS = [
  ['trader_llama', 'Trader Llama', 'neutral', 1.87, 0.9],
  ['warden', 'Warden', 'hostile', 2.9, 0.9],
  ['breeze', 'Breeze', 'hostile', 1.77, 0.6],
  ['bogged', 'Bogged', 'hostile', 1.99, 0.6],
  ['creaking', 'Creaking', 'hostile', 2.7, 0.9],
  ['allay', 'Allay', 'passive', 0.6, 0.35],
  ['frog', 'Frog', 'passive', 0.55, 0.5],
  ['tadpole', 'Tadpole', 'passive', 0.3, 0.4],
  ['camel', 'Camel', 'passive', 2.375, 1.7],
  ['sniffer', 'Sniffer', 'passive', 1.75, 1.9],
  ['armadillo', 'Armadillo', 'passive', 0.65, 0.7],
  ['happy_ghast', 'Happy Ghast', 'passive', 4.0, 4.0],
  ['glow_squid', 'Glow Squid', 'passive', 0.95, 0.95]
]

function classify (e) {
  if (e.name === 'player') return 'player'
  if (e.name === 'item') return 'item'
  if (NEUTRAL.has(e.name)) return 'neutral'
  if (PASSIVE_OVERRIDES.has(e.name)) return 'passive'
  if (OTHER_OVERRIDES.has(e.name)) return 'other'
  if (e.category === 'Hostile mobs') return 'hostile'
  if (e.category === 'Passive mobs') return 'passive'
  return 'other'
}

function displayName (e) {
  // Unnamed entries carry their raw name as display name ("tnt", "hopper_minecart").
  if (e.displayName && e.displayName !== e.name) return e.displayName
  return e.name.split('_').map(w => w.charAt(0).toUpperCase() + w.slice(1)).join(' ')
}

const mcDataRoot = path.join(path.dirname(require.resolve('minecraft-data/package.json')), 'minecraft-data', 'data')
const mcDataVersion = require('minecraft-data/package.json').version

function generate (gameVersion) {
  const dataPaths = JSON.parse(fs.readFileSync(path.join(mcDataRoot, 'dataPaths.json'), 'utf8'))
  const paths = dataPaths.bedrock[gameVersion]
  if (!paths || !paths.entities) throw new Error(`minecraft-data@${mcDataVersion} has no entities for bedrock ${gameVersion}`)
  const input = JSON.parse(fs.readFileSync(path.join(mcDataRoot, paths.entities, 'entities.json'), 'utf8'))
  const out = table(input)
  const dir = path.join(__dirname, 'bedrock', gameVersion)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'entities.json'), '[\n' + out.map(e => '  ' + JSON.stringify(e)).join(',\n') + '\n]\n')
  fs.writeFileSync(path.join(dir, 'entities.SOURCE.md'), sourceNote(gameVersion, paths.entities))
  console.log(`bedrock ${gameVersion}: ${out.length} entities from ${paths.entities}`)
}

function sourceNote (gameVersion, from) {
  return `# entities.json (clawcraft-entity's entity table)

Derived, not copied: \`data/make-entities.js\` reads minecraft-data **${mcDataVersion}**
\`data/${from}/entities.json\` (the entity list minecraft-data's \`dataPaths.json\` assigns to
${gameVersion}; PrismarineJS, <https://github.com/PrismarineJS/minecraft-data>, MIT licence — see
\`data/SOURCE.md\`) and writes one record per identifier: \`id\` (\`minecraft:<name>\`), \`name\`,
\`displayName\`, \`category\` (\`hostile\`/\`neutral\`/\`passive\`/\`player\`/\`item\`/\`other\`),
\`height\`, \`width\`, \`internalId\` (Bedrock's numeric actor type; \`null\` for the added mobs).

The hostile/neutral/passive classification is a hand-reviewed rule documented at the top of the
script (minecraft-data only says "Hostile mobs"/"Passive mobs" and gets a few wrong); mobs newer than
that list (warden, breeze, bogged, creaking, allay, frog, camel, sniffer, armadillo, …) are added by
the script with the same rule.

Regenerated by \`data/refresh.sh\` (see \`data/README.md\`).
`
}

function table (input) {
  const byName = new Map()
for (const e of input) {
  if (byName.has(e.name)) continue
  byName.set(e.name, {
    id: `minecraft:${e.name}`,
    name: e.name,
    displayName: displayName(e),
    category: classify(e),
    height: e.height ?? null,
    width: e.width ?? null,
    internalId: e.internalId ?? null
  })
}
for (const [name, display, category, height, width] of ADDITIONS) {
  if (byName.has(name)) continue
  byName.set(name, { id: `minecraft:${name}`, name, displayName: display, category, height, width, internalId: null })
}
  return [...byName.values()].sort((a, b) => a.id.localeCompare(b.id))
}

const versions = process.argv.slice(2)
if (versions.length === 0) {
  console.error('usage: NODE_PATH=<dir with minecraft-data> node data/make-entities.js <game version>...')
  process.exit(2)
}
for (const v of versions) generate(v)
