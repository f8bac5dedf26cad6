// Writes data/block_colors.tsv: one line per Bedrock block name (every version of versions.txt)
// with the average colour of its top face and of its sides, averaged from the block textures of
// the npm package minecraft-assets (Java Edition textures; Bedrock shares almost all of them).
//
// Usage: node gen-colors.js <minecraft-assets data dir of one version, e.g. …/data/1.21.11>
// (refresh-colors.sh installs the package and runs this). No npm dependency: PNGs are decoded
// here with node's zlib.
//
// Rules:
// - A colour is the mean of the texture's pixels weighted by alpha; `alpha` is the mean alpha
//   (glass, leaves and the like come out below 255). Animated textures (a strip of frames) use
//   the first frame.
// - Textures grey in the game files and tinted by the biome (grass top, leaves, vines, water …)
//   are multiplied by the plains tint (TINTS below), as a player sees them in the default biome.
// - A Bedrock name is looked up as is, then with its prefix/suffix rewritten (RENAMES, `waxed_`,
//   `hard_`, `lit_`, `_slab`, `_stairs`, `_wall`, `_fence`, `_carpet` → `_wool`, `_wood` →
//   `_log`, …), then through the package's blocks_textures.json. Names left unresolved are not
//   written; clawcraft-view gives those a colour by name heuristics.
'use strict'
const fs = require('fs')
const path = require('path')
const zlib = require('zlib')

const dir = process.argv[2]
if (!dir) { console.error('usage: node gen-colors.js <minecraft-assets data/<version> dir>'); process.exit(2) }
const here = __dirname

// ---- PNG decoding (8-bit and palette/greyscale of 1-8 bits; no interlace) ----
function decodePng (buf) {
  let pos = 8; let w = 0; let h = 0; let depth = 0; let ctype = 0; let interlace = 0
  let palette = null; let trns = null; const idat = []
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos); const type = buf.toString('ascii', pos + 4, pos + 8)
    const data = buf.subarray(pos + 8, pos + 8 + len)
    if (type === 'IHDR') { w = data.readUInt32BE(0); h = data.readUInt32BE(4); depth = data[8]; ctype = data[9]; interlace = data[12] }
    else if (type === 'PLTE') palette = data
    else if (type === 'tRNS') trns = data
    else if (type === 'IDAT') idat.push(data)
    pos += 12 + len
  }
  if (interlace) throw new Error('interlaced PNG')
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[ctype]
  const bpp = Math.max(1, (channels * depth) >> 3)
  const stride = (w * channels * depth + 7) >> 3
  const raw = zlib.inflateSync(Buffer.concat(idat))
  const out = Buffer.alloc(stride * h); let prev = Buffer.alloc(stride)
  for (let y = 0; y < h; y++) {
    const f = raw[y * (stride + 1)]; const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    const cur = out.subarray(y * stride, (y + 1) * stride)
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? cur[i - bpp] : 0; const b = prev[i]; const c = i >= bpp ? prev[i - bpp] : 0
      let v = line[i]
      if (f === 1) v += a
      else if (f === 2) v += b
      else if (f === 3) v += (a + b) >> 1
      else if (f === 4) { const p = a + b - c; const pa = Math.abs(p - a); const pb = Math.abs(p - b); const pc = Math.abs(p - c); v += (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c) }
      cur[i] = v & 255
    }
    prev = cur
  }
  const sample = (row, i) => { // i-th sample of a row, scaled to 0..255
    if (depth === 8) return row[i]
    if (depth === 16) return row[i * 2]
    const perByte = 8 / depth; const byte = row[Math.floor(i / perByte)]
    const shift = 8 - depth * (1 + (i % perByte)); return (byte >> shift) & ((1 << depth) - 1)
  }
  const px = (x, y) => {
    const row = out.subarray(y * stride, (y + 1) * stride)
    if (ctype === 3) { const k = sample(row, x); const a = trns && k < trns.length ? trns[k] : 255; return [palette[k * 3], palette[k * 3 + 1], palette[k * 3 + 2], a] }
    const s = (c) => { const v = sample(row, x * channels + c); return depth < 8 ? Math.round(v * 255 / ((1 << depth) - 1)) : v }
    if (ctype === 0) { const g = s(0); return [g, g, g, 255] }
    if (ctype === 4) { const g = s(0); return [g, g, g, s(1)] }
    if (ctype === 2) return [s(0), s(1), s(2), 255]
    return [s(0), s(1), s(2), s(3)]
  }
  return { w, h, px }
}

// Mean colour (alpha-weighted) and mean alpha of the first square frame.
function average (file) {
  const img = decodePng(fs.readFileSync(file))
  const n = Math.min(img.w, img.h); let r = 0; let g = 0; let b = 0; let a = 0
  for (let y = 0; y < n; y++) for (let x = 0; x < img.w; x++) { const p = img.px(x, y); r += p[0] * p[3]; g += p[1] * p[3]; b += p[2] * p[3]; a += p[3] }
  if (a === 0) return null
  return { rgb: [r / a, g / a, b / a], alpha: a / (n * img.w) }
}

// Plains tints (the default biome) for textures the game colours by biome.
const GRASS = [0x91, 0xbd, 0x59]; const FOLIAGE = [0x77, 0xab, 0x2f]; const WATER = [0x44, 0xaf, 0xf5]
const TINTS = {
  grass_block_top: GRASS, short_grass: GRASS, grass: GRASS, tall_grass_top: GRASS, tall_grass_bottom: GRASS, fern: GRASS,
  large_fern_top: GRASS, large_fern_bottom: GRASS, sugar_cane: GRASS,
  oak_leaves: FOLIAGE, jungle_leaves: FOLIAGE, acacia_leaves: FOLIAGE, dark_oak_leaves: FOLIAGE, mangrove_leaves: FOLIAGE,
  vine: FOLIAGE, birch_leaves: [0x80, 0xa7, 0x55], spruce_leaves: [0x61, 0x99, 0x61], lily_pad: [0x20, 0x80, 0x30],
  water_still: WATER, water_flow: WATER, attached_melon_stem: FOLIAGE, melon_stem: FOLIAGE, pumpkin_stem: FOLIAGE
}

// Bedrock names whose Java block (texture base name) differs.
const RENAMES = {
  snow_layer: 'snow', snow: 'snow_block', brick_block: 'bricks', web: 'cobweb', deadbush: 'dead_bush', waterlily: 'lily_pad',
  mob_spawner: 'spawner', lit_pumpkin: 'jack_o_lantern', carved_pumpkin: 'carved_pumpkin', reeds: 'sugar_cane', quartz_ore: 'nether_quartz_ore',
  melon_block: 'melon', nether_brick: 'nether_bricks', red_nether_brick: 'red_nether_bricks', end_bricks: 'end_stone_bricks',
  end_brick: 'end_stone_bricks', magma: 'magma_block', slime: 'slime_block', grass_path: 'dirt_path', hardened_clay: 'terracotta',
  noteblock: 'note_block', normal_stone: 'stone', stone_brick: 'stone_bricks', mossy_stone_brick: 'mossy_stone_bricks',
  prismarine_bricks: 'prismarine_bricks', prismarine_brick: 'prismarine_bricks', dark_prismarine: 'dark_prismarine', smooth_quartz: 'quartz_block_bottom',
  smooth_stone: 'smooth_stone', smooth_sandstone: 'sandstone_top', smooth_red_sandstone: 'red_sandstone_top', cut_sandstone: 'cut_sandstone',
  quartz: 'quartz_block', purpur: 'purpur_block', glowingobsidian: 'obsidian', invisible_bedrock: 'bedrock', undyed_shulker_box: 'shulker_box',
  silver_glazed_terracotta: 'light_gray_glazed_terracotta', wooden_door: 'oak_door', trapdoor: 'oak_trapdoor', fence_gate: 'oak_fence_gate',
  wooden_button: 'oak_planks', wooden_pressure_plate: 'oak_planks', heavy_weighted_pressure_plate: 'iron_block', light_weighted_pressure_plate: 'gold_block',
  stone_button: 'stone', stone_pressure_plate: 'stone', polished_blackstone_brick: 'polished_blackstone_bricks', deepslate_brick: 'deepslate_bricks',
  deepslate_tile: 'deepslate_tiles', mud_brick: 'mud_bricks', tuff_brick: 'tuff_bricks', resin_brick: 'resin_bricks', bamboo_mosaic: 'bamboo_mosaic',
  cobbled_deepslate: 'cobbled_deepslate', blackstone: 'blackstone', flowing_water: 'water', flowing_lava: 'lava', water: 'water', lava: 'lava',
  redstone_wire: 'redstone_dust_dot', sticky_piston: 'piston', piston_arm_collision: 'piston', sticky_piston_arm_collision: 'piston',
  ender_chest: 'obsidian', chest: 'oak_planks', trapped_chest: 'oak_planks', potatoes: 'potatoes_stage3', carrots: 'carrots_stage3',
  beetroot: 'beetroots_stage3', wheat: 'wheat_stage7', frame: 'item_frame', glow_frame: 'glow_item_frame', bamboo: 'bamboo_stalk',
  powered_repeater: 'repeater', unpowered_repeater: 'repeater', powered_comparator: 'comparator', unpowered_comparator: 'comparator',
  daylight_detector_inverted: 'daylight_detector', lit_redstone_lamp: 'redstone_lamp_on', redstone_lamp: 'redstone_lamp',
  small_dripleaf_block: 'small_dripleaf_top', frog_spawn: 'frogspawn', fire: 'fire_0', soul_fire: 'soul_fire_0', colored_torch_blue: 'torch',
  underwater_torch: 'torch', underwater_tnt: 'tnt', crimson_hyphae: 'crimson_stem', warped_hyphae: 'warped_stem', double_plant: 'tall_grass_top',
  tallgrass: 'short_grass', fence_gate: 'oak_planks', standing_sign: 'oak_planks', wall_sign: 'oak_planks',
  golden_rail: 'powered_rail', portal: 'nether_portal', bed: 'red_wool', unlit_redstone_torch: 'redstone_torch', trip_wire: 'tripwire',
  stonecutter_block: 'stonecutter', dirt_with_roots: 'rooted_dirt', azalea_leaves_flowered: 'flowering_azalea_leaves', moving_block: 'piston',
  standing_banner: 'white_wool', wall_banner: 'white_wool', deprecated_anvil: 'anvil', straw_bed: 'hay_block', yellow_flower: 'dandelion', red_flower: 'poppy', sea_lantern: 'sea_lantern', scaffolding: 'scaffolding_top'
}

const PREFIXES = ['waxed_', 'hard_', 'lit_', 'infested_', 'colored_torch_']
const SUFFIXES = [
  ['_double_slab', ''], ['_slab', ''], ['_stairs', ''], ['_wall_sign', '_planks'], ['_standing_sign', '_planks'],
  ['_hanging_sign', '_planks'], ['_wall_fan', '_fan'], ['_wall', ''], ['_fence_gate', '_planks'], ['_fence', '_planks'],
  ['_button', '_planks'], ['_pressure_plate', '_planks'], ['_carpet', '_wool'], ['_candle_cake', '_cake'], ['_pane', ''],
  ['_wood', '_log'], ['_hyphae', '_stem'], ['_head', '_skull'], ['_chain', '_chain'], ['_chest', '_block'],
  ['_golem_statue', '_block'], ['_lantern', '_lantern'], ['_bars', '_bars'], ['_bulb', '_bulb'], ['_grate', '_grate']
]

const textures = new Set(fs.readdirSync(path.join(dir, 'blocks')).filter(f => f.endsWith('.png')).map(f => f.slice(0, -4)))
let javaTextures = {}
try {
  for (const b of JSON.parse(fs.readFileSync(path.join(dir, 'blocks_textures.json'), 'utf8'))) {
    const t = (b.texture || '').replace(/^minecraft:/, '').replace(/^blocks?\//, '')
    if (t && t !== 'missingno' && textures.has(t)) javaTextures[b.name] = t
  }
} catch (e) { javaTextures = {} }

// Texture base names to try for one block name, best first.
function bases (name) {
  const out = []; const seen = new Set()
  const push = (n) => { if (n && !seen.has(n)) { seen.add(n); out.push(n) } }
  const variants = (n) => { push(RENAMES[n]); push(n); push(n + 's'); push(n + '_block'); push(n + '_planks'); push(n.replace(/s$/, '')) }
  let n = name.replace(/^darkoak_/, 'dark_oak_').replace('double_cut_copper', 'cut_copper')
  variants(n)
  for (const p of PREFIXES) if (n.startsWith(p)) { n = n.slice(p.length); variants(n) }
  for (const [s, r] of SUFFIXES) {
    if (n.endsWith(s)) {
      const stem = n.slice(0, -s.length); variants(stem + r); variants(stem)
      if (r === '_planks' && /_planks$/.test(stem + r)) variants(stem.replace(/_(log|stem)$/, ''))
      break
    }
  }
  if (javaTextures[n]) push(javaTextures[n])
  return out
}

function face (base, order) {
  for (const suffix of order) {
    const t = base + suffix
    if (textures.has(t)) {
      const avg = average(path.join(dir, 'blocks', t + '.png'))
      if (!avg) continue
      const tint = TINTS[t]
      if (tint) avg.rgb = avg.rgb.map((c, i) => c * tint[i] / 255)
      return avg
    }
  }
  return null
}

const hex = (rgb) => rgb.map(c => Math.max(0, Math.min(255, Math.round(c))).toString(16).padStart(2, '0')).join('')

const names = new Set()
for (const line of fs.readFileSync(path.join(here, 'versions.txt'), 'utf8').split('\n')) {
  const ver = line.replace(/#.*/, '').trim().split(/\s+/)[0]
  if (!ver) continue
  const f = path.join(here, 'bedrock', ver, 'blocks.json')
  if (!fs.existsSync(f)) continue
  for (const b of JSON.parse(fs.readFileSync(f, 'utf8')).blocks) names.add(b.name.replace(/^minecraft:/, ''))
}

const rows = []; let missing = 0
for (const name of [...names].sort()) {
  if (/^(air|cave_air|void_air|structure_void|light_block(_\d+)?|barrier|unknown|info_update\d*|reserved6|client_request_placeholder_block)$/.test(name)) continue
  let top = null; let side = null
  for (const base of bases(name)) {
    top = top || face(base, ['_top', '', '_still', '_side', '_front'])
    side = side || face(base, ['', '_side', '_still', '_front', '_top'])
    if (top && side) break
  }
  if (!top && !side) { missing++; if (process.env.SHOW_MISSING) console.log(name); continue }
  top = top || side; side = side || top
  const alpha = /^(flowing_)?water$/.test(name) ? 150 : Math.round(Math.min(top.alpha, side.alpha))
  rows.push(`${name}\t${hex(top.rgb)}\t${hex(side.rgb)}\t${alpha}`)
}
const header = [
  '# Block colours for clawcraft-view: name, top face colour, side colour (hex RGB), alpha (0-255).',
  `# Generated by data/gen-colors.js from minecraft-assets (${path.basename(dir)} textures); see data/SOURCE.md.`,
  '# Regenerate with data/refresh-colors.sh; do not edit by hand.'
]
fs.writeFileSync(path.join(here, 'block_colors.tsv'), header.concat(rows).join('\n') + '\n')
console.log(`block_colors.tsv: ${rows.length} blocks, ${missing} left to the name heuristics`)
