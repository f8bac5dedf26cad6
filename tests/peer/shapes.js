'use strict'
// Packet params for any supported Bedrock version, from minecraft-data's types (shared by the
// peer, server.js, and the vector generator, tests/vectors/make-vectors.js):
// - neutral(): the neutral value of a type (so code only spells out what matters),
// - merge(), prune(): fill given params with neutral values / drop keys a version lacks,
// - layouts(): which layout a version uses where packets changed shape between versions,
// - fit() / forVersion(): the peer's packets (written in the 1.26.40+ shape) in the version's own
//   shape.

// --- neutral values from the schema, so big packets only spell out what matters ----------------
// `siblings` holds the fields decided so far (given values win), for switch compareTo lookups.
function neutral (types, t, siblings, given) {
  if (typeof t === 'string') {
    switch (t) {
      case 'bool': return false
      case 'varint64': case 'zigzag64': case 'li64': case 'lu64': case 'i64': case 'u64': return 0n
      case 'lf32': case 'lf64': case 'f32': case 'f64': return 0
      case 'void': return undefined
      case 'uuid': return '00000000-0000-0000-0000-000000000000'
      case 'nbt': return { type: 'compound', name: '', value: {} }
      case 'restBuffer': return Buffer.alloc(0)
      default:
        if (types[t] === undefined || types[t] === 'native') return 0
        return neutral(types, types[t], siblings, given)
    }
  }
  const [kind, args] = t
  switch (kind) {
    case 'container': {
      const o = {}
      const g = (given && typeof given === 'object') ? given : {}
      for (const f of args) {
        const scope = { ...o, ...g }
        const v = neutral(types, f.type, scope, f.anon ? g : g[f.name])
        if (f.anon) Object.assign(o, v || {})
        else o[f.name] = v
      }
      return o
    }
    case 'mapper': {
      const keys = Object.keys(args.mappings).map(Number).sort((a, b) => a - b)
      const k = keys.includes(0) ? 0 : keys[0]
      return args.mappings[String(k)]
    }
    case 'switch': {
      // `a.b` compares a property of an earlier field (e.g. `input_data.item_interact`).
      const c = siblings ? args.compareTo.split('.').reduce((x, k) => (x == null ? undefined : x[k]), siblings) : undefined
      const branch = args.fields[String(c)] ?? args.default ?? 'void'
      return neutral(types, branch, siblings, given)
    }
    case 'option': return undefined
    // Given elements are filled out too (big element types such as PlayerRecord's Skin); an
    // element switch may compare against the enclosing container (older PlayerRecords).
    case 'array': case 'maybeIncompleteArray':
      return Array.isArray(given) ? given.map(e => neutral(types, args.type, siblings, e)) : []
    case 'buffer': return Buffer.alloc(args.count || 0)
    case 'pstring': return ''
    case 'bitflags': return {}
    case 'encapsulated': return undefined
    default: return undefined
  }
}

// Drops keys the version's type does not declare (in any switch branch), so one description can
// serve versions that lack a field.
function prune (types, t, v) {
  if (v === undefined || v === null || typeof v !== 'object' || Buffer.isBuffer(v) || typeof v === 'bigint') return v
  if (typeof t === 'string') {
    if (types[t] === undefined || types[t] === 'native') return v
    return prune(types, types[t], v)
  }
  const [kind, args] = t
  switch (kind) {
    case 'container': {
      if (Array.isArray(v)) return v
      const known = new Map()
      const collect = (fields) => {
        for (const f of fields) {
          if (!f.anon) { known.set(f.name, [...(known.get(f.name) || []), f.type]); continue }
          for (const b of branches(types, f.type)) if (b[0] === 'container') collect(b[1])
        }
      }
      collect(args)
      const o = {}
      for (const [k, x] of Object.entries(v)) {
        if (!known.has(k)) continue
        const ts = known.get(k)
        o[k] = ts.length === 1 ? prune(types, ts[0], x) : x
      }
      return o
    }
    case 'switch': {
      const bs = branches(types, t).filter(b => b !== 'void')
      return bs.length === 1 ? prune(types, bs[0], v) : v
    }
    case 'option': return prune(types, args, v)
    case 'encapsulated': return prune(types, args.type, v)
    case 'array': case 'maybeIncompleteArray': return Array.isArray(v) ? v.map(e => prune(types, args.type, e)) : v
    default: return v
  }
}

// The branches of a (possibly named) switch type, resolved to their definitions.
function branches (types, t) {
  const resolve = (x) => (typeof x === 'string' && types[x] !== undefined && types[x] !== 'native') ? resolve(types[x]) : x
  t = resolve(t)
  if (!Array.isArray(t) || t[0] !== 'switch') return [t]
  return [...Object.values(t[1].fields), t[1].default ?? 'void'].map(resolve)
}

function merge (base, over) {
  if (over === undefined) return base
  // A flag given as a boolean where the version has a byte (older items' has_stack_id):
  // ProtoDef's switch on it needs 0/1.
  if (typeof base === 'number' && typeof over === 'boolean') return over ? 1 : 0
  // A stack id given as a number where the version has a `{type, id}` variant (ItemV4 before
  // 1.26.40): a network stack id.
  if (base && typeof base === 'object' && 'type' in base && 'id' in base && Object.keys(base).length === 2 &&
      (typeof over === 'number' || typeof over === 'bigint')) return { type: 'item_stack_net_id', id: over }
  // A number where the version has a string (older skins' skin_color).
  if (typeof base === 'string' && typeof over === 'number') return String(over)
  if (Array.isArray(base) && Array.isArray(over) && base.length === over.length) return over.map((v, i) => merge(base[i], v))
  if (base && over && typeof base === 'object' && typeof over === 'object' && !Array.isArray(over) &&
      !Buffer.isBuffer(over) && typeof over !== 'bigint') {
    const o = { ...base }
    for (const [k, v] of Object.entries(over)) o[k] = merge(base[k], v)
    return o
  }
  return over
}

// Which of the layouts that changed between supported versions a version uses, recognised from
// its types (mirrors what plugins/protocol/src/codec/dialect.rs recognises, independently).
function layouts (types) {
  const has = (t, text) => JSON.stringify(types[t] || null).includes(text)
  return {
    flagBits: types.InputFlag !== undefined, // PlayerAuthInput flags as a bitset (pre-1.26.40)
    presence: has('packet_player_auth_input', 'transaction_presence'), // 1.26.40-45 double optionals
    actionsPresence: has('TransactionActions', 'container_presence'),
    authActionsSwitch: has('TransactionActionsAuthInput', 'inventory_id') || (!has('TransactionActions', 'window_id') && has('TransactionActions', 'inventory_id')),
    useItemHand: has('TransactionUseItem', '"hand"'),
    deltaFlags: types.DeltaMoveFlags !== undefined,
    chunkInCount: has('packet_level_chunk', '"-2"'),
    requestDeltas: has('packet_subchunk_request', '"dx"'),
    heightmapRows: !has('SubChunkEntry', '"count":256') && types.SubChunkEntry !== undefined,
    groupedPlayerList: has('PlayerRecords', 'records_count'),
    dimensionMinY: has('packet_dimension_data', 'min_y')
  }
}

// The peer writes packets in the 1.26.40+ shape; older versions group player list records,
// announce delta axes with flags and encode request mode in sub_chunk_count (and use a byte for
// has_stack_id and a `{type, id}` stack id: see merge()). Then every packet is filled with neutral values and pruned to the
// version.
function fit (types, L, name, params) {
  const t = types['packet_' + name]
  if (!t || !params || typeof params !== 'object') return params
  let p = params
  if (name === 'player_list' && L.groupedPlayerList && Array.isArray(p.records)) {
    const type = p.records[0]?.type ?? 'add'
    const records = p.records.map(({ type: _t, legacy_type: _l, ...r }) => r)
    p = { records: { type, records_count: records.length, records, ...(type === 'add' ? { verified: records.map(() => true) } : {}) } }
  }
  if (name === 'move_entity_delta' && L.deltaFlags) {
    const has = (v) => v !== undefined && v !== null
    p = {
      ...p,
      flags: { has_x: has(p.x), has_y: has(p.y), has_z: has(p.z), has_rot_x: has(p.rot_x), has_rot_y: has(p.rot_y), has_rot_z: has(p.rot_z), on_ground: !!p.on_ground, force_move: !!p.force_move }
    }
  }
  if (name === 'level_chunk' && L.chunkInCount) {
    const limited = p.highest_subchunk_count !== undefined && p.highest_subchunk_count !== null
    p = { ...p, sub_chunk_count: limited ? -2 : p.sub_chunk_count, blobs: p.cache_enabled ? { hashes: p.blobs || [] } : undefined }
  }
  return prune(types, t, merge(neutral(types, t, undefined, p), p))
}

function forVersion (types) {
  const L = layouts(types)
  return (name, params) => fit(types, L, name, params)
}

// The version marked `default` in data/versions.txt (what the peer serves without --version).
function defaultVersion () {
  const text = require('fs').readFileSync(require('path').join(__dirname, '..', '..', 'data', 'versions.txt'), 'utf8')
  const line = text.split('\n').map(l => l.trim().split(/\s+/)).find(f => f[0] && !f[0].startsWith('#') && f[2] === 'default')
  if (!line) throw new Error('data/versions.txt marks no default version')
  return line[0]
}

module.exports = { neutral, merge, prune, branches, layouts, fit, forVersion, defaultVersion }
