#!/usr/bin/env node
// Generates golden packet vectors with bedrock-protocol's own ProtoDef serializer, so the Rust
// interpreter is checked against an independent implementation of the same definitions.
//
// Usage: NODE_PATH=<dir containing bedrock-protocol + minecraft-data> node make-vectors.js [version...]
//   (no version: every version of data/versions.txt)
// Writes tests/vectors/<version>.json: [{ name, params, hex }], hex = varuint header + fields.
// `params` are in each version's own layout (minecraft-data's names); where a packet's shape
// changed between versions the packet list below builds the version's shape (recognised from the
// version's types, like the Rust codec does), and keys a version does not have are pruned.
//
// JSON conventions (what the Rust test expects):
// - 64-bit integers are written as decimal strings (BigInt-safe).
// - Buffers are written as lowercase hex strings prefixed "hex:".
// - UUIDs: the wire format (vanilla/Mojang/gophertunnel) is two little-endian u64 halves, i.e.
//   canonical bytes 7..0 then 15..8. bedrock-protocol instead writes the RFC byte order. So for
//   every UUID recorded in `params` we hand bedrock-protocol a *pre-swapped* UUID whose RFC bytes
//   equal the vanilla encoding of the recorded one (see `U()` / `swapUuid()`).
// - NBT values are prismarine-nbt objects ({type, name, value}); 64-bit NBT longs as strings.
'use strict'
const fs = require('fs')
const path = require('path')
const { createSerializer, createDeserializer } = require('bedrock-protocol/src/transforms/serializer')

const versions = process.argv.length > 2
  ? process.argv.slice(2)
  : fs.readFileSync(path.join(__dirname, '..', '..', 'data', 'versions.txt'), 'utf8').split('\n')
    .map(l => l.trim()).filter(l => l && !l.startsWith('#')).map(l => l.split(/\s+/)[0])

// --- UUID pre-swap ----------------------------------------------------------------------------
const uuidSwaps = new Map()
function swapUuid (u) {
  const h = u.replace(/-/g, '')
  const bytes = h.match(/../g)
  const swapped = bytes.slice(0, 8).reverse().concat(bytes.slice(8, 16).reverse()).join('')
  return `${swapped.slice(0, 8)}-${swapped.slice(8, 12)}-${swapped.slice(12, 16)}-${swapped.slice(16, 20)}-${swapped.slice(20)}`
}
/** Registers a UUID used in params; bedrock-protocol will be given its swapped form. */
function U (u) { uuidSwaps.set(u, swapUuid(u)); return u }

// Deep copy for bedrock-protocol: swap registered UUIDs, keep BigInt/Buffer as they are.
function forBedrockProtocol (v) {
  if (typeof v === 'string') return uuidSwaps.has(v) ? uuidSwaps.get(v) : v
  if (Array.isArray(v)) return v.map(forBedrockProtocol)
  if (v && typeof v === 'object' && !Buffer.isBuffer(v)) {
    const o = {}
    for (const [k, x] of Object.entries(v)) o[k] = forBedrockProtocol(x)
    return o
  }
  return v
}

// BigInt -> string, Buffer -> "hex:..." for the recorded params.
function toJson (v) {
  if (typeof v === 'bigint') return v.toString()
  if (Buffer.isBuffer(v)) return 'hex:' + v.toString('hex')
  if (Array.isArray(v)) return v.map(toJson)
  if (v && typeof v === 'object') {
    const o = {}
    for (const [k, x] of Object.entries(v)) if (x !== undefined) o[k] = toJson(x)
    return o
  }
  return v
}

// Neutral values, merging, pruning and layouts: shared with the peer.
const { neutral, merge, prune, layouts } = require('../peer/shapes.js')
const { craftingDataParams } = require('../peer/crafting.js')

// --- the packets -------------------------------------------------------------------------------
const nbtState = {
  type: 'compound',
  name: '',
  value: {
    name: { type: 'string', value: 'minecraft:stone' },
    version: { type: 'int', value: 18100737 },
    big: { type: 'long', value: 1234567890123n },
    tags: { type: 'list', value: { type: 'string', value: ['a', 'b'] } }
  }
}

// An empty slot as minecraft-data writes it (air in full, 10-byte user data).
const AIR = { network_id: 0, count: 0, metadata: 0, has_stack_id: false, block_runtime_id: 0, extra: { has_nbt: 'false', can_place_on: [], can_destroy: [] } }

function packets (types, protocolVersion) {
  const L = layouts(types)
  // Which item encoding a packet uses: before 1.26.40 some packets carry the older `Item`
  // (network-id switch, signed block runtime id, plain stack id), others `ItemV4`, whose stack id
  // is a `{type, id}` variant; since 1.26.40 every packet carries `ItemV4` with a plain id.
  const reachMemo = new Map()
  const reaches = (t, target, seen = new Set()) => {
    if (typeof t === 'string') {
      if (t === target) return true
      if (!types[t] || types[t] === 'native' || seen.has(t)) return false
      const key = t + '>' + target
      if (!reachMemo.has(key)) { seen.add(t); reachMemo.set(key, reaches(types[t], target, seen)) }
      return reachMemo.get(key)
    }
    if (Array.isArray(t)) return t.some(x => reaches(x, target, seen))
    if (t && typeof t === 'object') return Object.values(t).some(x => reaches(x, target, seen))
    return false
  }
  const uses = (packet, type) => types[type] !== undefined && reaches('packet_' + packet, type)
  const sid = (packet, id) => uses(packet, 'ItemV4NetIdVariant') ? { type: 'item_stack_net_id', id } : id
  const brid = (packet, id) => uses(packet, 'Item') ? id | 0 : id
  const air = (packet) => uses(packet, 'Item') ? { network_id: 0 } : AIR // the older form stops after the id
  const item = (id, count, meta) => ({ network_id: id, count, metadata: meta, block_runtime_id: 0, extra: { has_nbt: 'false', can_place_on: [], can_destroy: [] } })
  // Flags as the version carries them: a list of names, or (bitset) an object of booleans.
  const flags = (names) => L.flagBits ? Object.fromEntries(names.map(n => [n, true])) : names
  const presence = (names) => L.presence ? Object.fromEntries(names.map(n => [n + '_presence', true])) : {}
  const blocks = ['transaction', 'item_stack_request', 'block_action', 'vehicle_rotation', 'predicted_vehicle']
  const authInput = (extra) => ({
    pitch: -12.5,
    yaw: 181.25,
    position: { x: 100.5, y: 65.62, z: -20.5 },
    move_vector: { x: 0, z: 1 },
    head_yaw: 181.25,
    input_mode: 'mouse',
    play_mode: 'normal',
    interaction_model: 'crosshair',
    interact_rotation: { x: -12.5, z: 181.25 },
    tick: 123456n,
    delta: { x: 0, y: -0.0784, z: 0.2 },
    analogue_move_vector: { x: 0, z: 1 },
    camera_orientation: { x: 0.1, y: -0.2, z: 0.97 },
    raw_move_vector: { x: 0, z: 1 },
    ...presence(blocks),
    ...extra
  })
  const action = (slot) => L.authActionsSwitch
    ? { source_type: 'container', inventory_id: 'inventory', slot, old_item: { network_id: 0 }, new_item: item(5, 1, 0) }
    : { source_type: 'container', ...(L.actionsPresence ? { container_presence: true, flag_presence: true } : {}), window_id: 0, slot, old_item: { network_id: 0 }, new_item: item(5, 1, 0) }
  const useItem = {
    action_type: 'click_block',
    trigger_type: 'player_input',
    block_position: { x: 1, y: 64, z: -2 },
    face: 1,
    hotbar_slot: 3,
    ...(L.useItemHand ? { hand: 'main_hand' } : {}),
    held_item: item(5, 12, 0),
    player_pos: { x: 1.5, y: 65.62, z: -1.5 },
    click_pos: { x: 0.5, y: 1, z: 0.5 },
    block_runtime_id: 12530,
    client_prediction: 'success',
    client_cooldown_state: 'off'
  }
  const meta = (key, type, legacyType, value) => ({ key, type, legacy_type: legacyType, value }) // legacy_type pruned where absent
  const subOffsets = (list) => list.map(([x, y, z]) => L.requestDeltas ? { dx: x, dy: y, dz: z } : { x, y, z })
  const heightmap = (bytes) => L.heightmapRows
    ? Array.from({ length: 16 }, (_, r) => Array.from(bytes.subarray(r * 16, r * 16 + 16)).map(b => b << 24 >> 24))
    : bytes
  const playerList = (type, records) => L.groupedPlayerList
    ? { records: { type, records_count: records.length, records, ...(type === 'add' ? { verified: records.map(() => true) } : {}) } }
    : { records: records.map(r => ({ type, legacy_type: type === 'add' ? 0 : 1, ...r })) }
  const dimension = (id, min, max, generator, type) => L.dimensionMinY
    ? { id, min_y: min, height_range: max - min, generator, dimension_type: type, default_biome: 'plains', cloud_height: 192, render_clouds: true }
    : { id, max_height: max, min_height: min, generator, dimension_type: type }
  return [
    ['play_status', { status: 'player_spawn' }],
    ['disconnect', { reason: 'kicked', hide_disconnect_reason: false, message: 'You were kicked', filtered_message: '' }],
    ['disconnect', { reason: 'server_full', hide_disconnect_reason: true }],
    ['resource_packs_info', {
      must_accept: true,
      has_addons: false,
      has_scripts: true,
      disable_vibrant_visuals: false,
      world_template: { uuid: U('0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9'), version: '1.0.0' },
      texture_packs: [{
        uuid: U('5f3c1a9e-2b7d-4c88-9e01-abcdef123456'),
        version: '1.2.3',
        size: 1048576n,
        content_key: '',
        sub_pack_name: '',
        content_identity: 'ident',
        has_scripts: false,
        addon_pack: false,
        rtx_enabled: true,
        cdn_url: 'https://cdn.example/pack.zip'
      }]
    }],
    ['resource_pack_stack', {
      must_accept: false,
      resource_packs: [{ uuid: '0f9e8d7c-6b5a-4938-2716-0a1b2c3d4e5f', version: '1.2.3', name: 'Vanilla+' }],
      game_version: '1.26.45',
      experiments: [{ name: 'gametest', enabled: true }],
      experiments_previously_used: true,
      has_editor_packs: false
    }],
    ['resource_pack_client_response', { response_status: 'have_all_packs', response_status_name: '', resourcepackids: undefined }],
    ['resource_pack_client_response', { response_status: 'send_packs', response_status_name: '', resourcepackids: ['5f3c1a9e-2b7d-4c88-9e01-abcdef123456_1.2.3'] }],
    ['client_cache_status', { enabled: true }],
    ['start_game', {
      entity_id: -4294967301n,
      runtime_entity_id: 9007199254740993n,
      player_gamemode: 'creative',
      player_position: { x: 12.5, y: 64, z: -3.25 },
      rotation: { x: 10.5, z: 90 },
      seed: 18446744073709551615n,
      biome_type: 0,
      biome_name: 'plains',
      dimension: 'overworld',
      generator: 1,
      world_gamemode: 'survival',
      hardcore: false,
      difficulty: 2,
      spawn_position: { x: 100, y: 70, z: -200 },
      day_cycle_stop_time: -1,
      rain_level: 0.5,
      game_version: '1.26.45',
      gamerules: [
        { name: 'dodaylightcycle', editable: true, type: 'bool', value: true },
        { name: 'randomtickspeed', editable: false, type: 'int', value: 3 }
      ],
      experiments: [{ name: 'data_driven_items', enabled: true }],
      permission_level: 'member',
      server_chunk_tick_range: 4,
      level_id: 'bGV2ZWw=',
      world_name: 'Bedrock level',
      premium_world_template_id: '',
      rewind_history_size: 40,
      server_authoritative_block_breaking: true,
      current_tick: 123456789012n,
      enchantment_seed: -559038737,
      block_properties: [{ name: 'custom:block', state: nbtState }],
      multiplayer_correlation_id: 'abc-123',
      server_authoritative_inventory: true,
      engine: '1.26.45',
      property_data: { type: 'compound', name: '', value: {} },
      block_pallette_checksum: 1311768467463790320n,
      world_template_id: U('123e4567-e89b-12d3-a456-426614174000'),
      client_side_generation: false,
      block_network_ids_are_hashes: true,
      server_controlled_sound: true,
      has_server_join_info: false,
      server_identifier: 'srv',
      scenario_identifier: '',
      world_identifier: 'world-1',
      owner_identifier: ''
    }],
    ['item_registry', {
      itemstates: [
        { name: 'minecraft:shield', runtime_id: 380, component_based: false, version: 'legacy', nbt: { type: 'compound', name: '', value: {} } },
        { name: 'custom:wand', runtime_id: -12, component_based: true, version: 'data_driven', nbt: nbtState }
      ]
    }],
    ['request_chunk_radius', { chunk_radius: 12, max_radius: 16 }],
    ['chunk_radius_update', { chunk_radius: 10 }],
    ['set_local_player_as_initialized', { runtime_entity_id: 4611686018427387905n }],
    ['player_auth_input', authInput({
      input_data: flags(['up', 'sprint_down', 'sprinting', 'jumping', 'block_breaking_delay_enabled', 'block_action', 'client_predicted_vehicle']),
      block_action: [{ action: 'start_break', position: { x: 1, y: 64, z: -2 }, face: 1 }, { action: 'abort_break', position: { x: 1, y: 64, z: -2 }, face: 0 }],
      // Before 1.26.40 the vehicle block carries both fields; later each is optional.
      ...(L.flagBits ? { vehicle_rotation: { x: 5, z: 90 } } : {}),
      predicted_vehicle: -77n
    })],
    ['player_auth_input', authInput({
      input_data: flags(['item_interact', 'start_using_item']),
      transaction: { legacy: { legacy_request_id: 0 }, ...(L.presence ? { actions_presence: true } : {}), actions: [action(3)], data: useItem }
    })],
    ['inventory_transaction', {
      transaction: {
        legacy: { legacy_request_id: 0 },
        transaction_type: 'item_use',
        actions: [{ source_type: 'world_interaction', ...(L.actionsPresence ? { container_presence: true, flag_presence: true } : {}), flags: 1, slot: 0, old_item: { network_id: 0 }, new_item: item(5, 1, 0) }],
        transaction_data: useItem
      }
    }],
    ['network_stack_latency', { timestamp: 1717171717171000n, needs_response: 1 }],
    ['move_player', {
      runtime_id: 1234,
      position: { x: 0.5, y: 65.62, z: 0.5 },
      pitch: 3.5,
      yaw: -90,
      head_yaw: -90,
      mode: 'teleport',
      on_ground: true,
      ridden_runtime_id: 0,
      teleport: { cause: 'command', source_entity_type: 0 },
      tick: 987654321n
    }],
    ['correct_player_move_prediction', {
      prediction_type: 'player',
      position: { x: 1, y: 2, z: 3 },
      delta: { x: 0.5, y: -0.25, z: 0 },
      rotation: { x: 10, z: 20 },
      angular_velocity: 0.75,
      on_ground: false,
      tick: 42n
    }],
    ['respawn', { position: { x: 0.5, y: 70, z: 0.5 }, state: 1, runtime_entity_id: 99n }],
    ['set_time', { time: 6000 }],
    ['text', {
      needs_translation: false,
      category: 'authored',
      type: 'chat',
      source_name: 'Steve',
      message: 'hello §aworld ✓',
      xuid: '2535400000000000',
      platform_chat_id: '',
      has_filtered_message: true,
      filtered_message: 'hello world'
    }],
    ['text', {
      needs_translation: true,
      category: 'parameters',
      type: 'translation',
      message: 'chat.type.announcement',
      parameters: ['Server', 'restart in 5'],
      xuid: '',
      platform_chat_id: '',
      has_filtered_message: false
    }],
    ['level_chunk', {
      x: -3,
      z: 7,
      dimension: 0,
      sub_chunk_count: 4,
      highest_subchunk_count: undefined,
      cache_enabled: false,
      blobs: L.chunkInCount ? undefined : [],
      payload: Buffer.from('0901020304050607', 'hex')
    }],
    // Sub-chunk request mode with a limit, and the blob cache: encoded differently before 1.26.40.
    ['level_chunk', {
      x: 5,
      z: -5,
      dimension: 0,
      sub_chunk_count: L.chunkInCount ? -2 : 0,
      highest_subchunk_count: 6,
      cache_enabled: true,
      blobs: L.chunkInCount ? { hashes: [1311768467463790320n, 42n] } : [1311768467463790320n, 42n],
      payload: Buffer.from('00', 'hex')
    }],
    ['network_chunk_publisher_update', {
      coordinates: { x: 100, y: 64, z: -200 },
      radius: 128,
      saved_chunks: [{ x: 6, z: -13 }, { x: 7, z: -13 }]
    }],
    ['serverbound_loading_screen', { type: 1, loading_screen_id: 7 }],
    ['update_attributes', {
      runtime_entity_id: 1n,
      attributes: [{
        min: 0, max: 20, current: 18, default_min: 0, default_max: 20, default: 20,
        name: 'minecraft:health',
        modifiers: [{ id: 'mod-1', name: 'boost', amount: 2, operation: 0, operand: 1, serializable: true }]
      }, {
        min: 0, max: 3.4028234663852886e38, current: 0.1, default_min: 0, default_max: 3.4028234663852886e38, default: 0.1,
        name: 'minecraft:movement',
        modifiers: []
      }],
      tick: 5000n
    }],
    ['set_movement_authority', { movement_authority: 'server_with_rewind' }],
    ['network_settings', { compression_threshold: 256, compression_algorithm: 'snappy', client_throttle: false, client_throttle_threshold: 0, client_throttle_scalar: 0 }],
    ['request_network_settings', { client_protocol: protocolVersion }],
    ['login', { protocol_version: protocolVersion, tokens: { identity: '{"AuthenticationType":2,"Certificate":"{\\"chain\\":[]}"}', client: 'eyJhbGciOiJFUzM4NCJ9.eyJ9.sig' } }],
    ['server_to_client_handshake', { token: 'eyJ4NXUiOiJNSFl3In0.eyJzYWx0IjoiQUFBQSJ9.c2ln' }],
    ['client_to_server_handshake', {}],
    // --- entities ---------------------------------------------------------------------------
    ['add_player', {
      uuid: U('8f14e45f-ceea-467a-9575-7f6b5e2d1c3a'),
      username: 'Alex_Builder',
      runtime_id: 2049n,
      platform_chat_id: '',
      position: { x: -120.5, y: 71.62, z: 300.25 },
      velocity: { x: 0.1, y: -0.0784, z: 0 },
      pitch: 12.5,
      yaw: -135,
      head_yaw: -130.5,
      metadata: [
        { key: 'flags', type: 'long', legacy_type: 7, value: { can_show_nametag: true, always_show_nametag: true, breathing: true, has_collision: true, affected_by_gravity: true } },
        { key: 'nametag', type: 'string', legacy_type: 4, value: 'Alex_Builder' },
        { key: 'scale', type: 'float', legacy_type: 3, value: 1 }
      ],
      unique_id: -12884901889n,
      device_id: 'b7e3c1d2-0000-4a4a-9f9f-123456789abc',
      device_os: 'Win10'
    }],
    ['add_entity', {
      unique_id: -8589934593n,
      runtime_id: 4097n,
      entity_type: 'minecraft:zombie',
      position: { x: 10.5, y: 64, z: -7.25 },
      velocity: { x: 0, y: -0.0784, z: 0.05 },
      pitch: -5,
      yaw: 270,
      head_yaw: 265.5,
      body_yaw: 270,
      metadata: [
        { key: 'flags', type: 'long', legacy_type: 7, value: { onfire: true, baby: true, has_collision: true, affected_by_gravity: true, can_climb: true } },
        { key: 'nametag', type: 'string', legacy_type: 4, value: 'Zombie Bob' },
        { key: 'health', type: 'int', legacy_type: 2, value: 17 }
      ]
    }],
    ['add_item_entity', {
      entity_id_self: -4294967303n,
      runtime_entity_id: 5000n,
      item: { network_id: 305, count: 12, metadata: 3, block_runtime_id: 0, extra: { has_nbt: 'false', can_place_on: [], can_destroy: [] } },
      position: { x: 3.5, y: 65.125, z: -9.75 },
      velocity: { x: 0.05, y: 0.2, z: -0.05 },
      metadata: [{ key: 'flags', type: 'long', legacy_type: 7, value: { has_collision: true, affected_by_gravity: true } }],
      is_from_fishing: true
    }],
    ['remove_entity', { entity_id_self: -8589934593n }],
    ['move_entity', { runtime_entity_id: 4097n, flags: 1, position: { x: 11.25, y: 64.5, z: -8 }, rotation: { yaw: 90, pitch: 11.25, head_yaw: 135 } }],
    ...(L.deltaFlags
      ? [
          ['move_entity_delta', { runtime_entity_id: 4097n, flags: { has_x: true, has_y: true, has_z: true, has_rot_y: true, has_rot_z: true, on_ground: true }, x: 11.75, y: 64.5, z: -8.5, rot_y: 64, rot_z: 66 }],
          ['move_entity_delta', { runtime_entity_id: 2049n, flags: { has_y: true, has_rot_x: true, teleport: true, force_move: true }, y: 70.125, rot_x: 250 }]
        ]
      : [
          ['move_entity_delta', { runtime_entity_id: 4097n, x: 11.75, y: 64.5, z: -8.5, rot_x: undefined, rot_y: 64, rot_z: 66, on_ground: true, force_move: false, force_move_local_entity: false, force_completion: false, ticks: 77n }],
          ['move_entity_delta', { runtime_entity_id: 2049n, x: undefined, y: 70.125, z: undefined, rot_x: 250, rot_y: undefined, rot_z: undefined, on_ground: false, force_move: true, force_move_local_entity: true, force_completion: true }]
        ]),
    ['set_entity_motion', { runtime_entity_id: 4097n, velocity: { x: -0.25, y: 0.42, z: 0.125 }, tick: 987654n }],
    ['set_entity_data', {
      runtime_entity_id: 4097n,
      metadata: [
        { key: 'flags', type: 'long', legacy_type: 7, value: { sneaking: true, can_show_nametag: true, always_show_nametag: true, has_collision: true, affected_by_gravity: true, breathing: true } },
        { key: 'nametag', type: 'string', legacy_type: 4, value: '§cAngry Bob' }
      ],
      tick: 987655n
    }],
    ['take_item_entity', { runtime_entity_id: 5000n, target: 2049 }],
    ['player_list', playerList('add', [{
      uuid: U('8f14e45f-ceea-467a-9575-7f6b5e2d1c3a'), entity_unique_id: -12884901889n,
      username: 'Alex_Builder', xbox_user_id: '2535412345678901', platform_chat_id: '', build_platform: 7, is_host: false
    }, {
      uuid: U('0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f0'), entity_unique_id: -1n,
      username: 'Host', xbox_user_id: '', platform_chat_id: 'pc', build_platform: 1, is_host: true
    }])],
    ['player_list', playerList('remove', [{ uuid: U('8f14e45f-ceea-467a-9575-7f6b5e2d1c3a') }])],
    // --- world -------------------------------------------------------------------------------
    ['change_dimension', { dimension: 1, position: { x: 12.5, y: 70, z: -3.5 }, respawn: false, loading_screen_id: 3 }],
    ['subchunk_request', { dimension: 0, requests: subOffsets([[0, -4, 0], [1, 3, -1], [-1, 0, 1]]), origin: { x: -7, y: 0, z: 12 } }],
    ['subchunk', {
      cache_enabled: false,
      dimension: 0,
      origin: { x: -7, y: 0, z: 12 },
      entries: [{
        dx: 0, dy: -4, dz: 0, result: 'success',
        payload: Buffer.from('0901010203040506070809', 'hex'),
        heightmap_type: 'has_data',
        heightmap: heightmap(Buffer.from(Array.from({ length: 256 }, (_, i) => (i % 18) - 1))),
        render_heightmap_type: 'no_data',
        render_heightmap: undefined,
        blob_id: undefined
      }, {
        dx: 1, dy: 3, dz: -1, result: 'success_all_air',
        payload: undefined,
        heightmap_type: 'too_low',
        heightmap: undefined,
        render_heightmap_type: 'too_low',
        render_heightmap: undefined,
        blob_id: undefined
      }]
    }],
    ['update_block', { position: { x: -120, y: 63, z: 301 }, block_runtime_id: 12530, layer: 0 }],
    ['update_block', { position: { x: 5, y: -60, z: -5 }, block_runtime_id: 77, layer: 1 }],
    ['update_subchunk_blocks', {
      x: -112, y: 48, z: 304,
      blocks: [
        { position: { x: -120, y: 63, z: 301 }, runtime_id: 12530, flags: 3, entity_unique_id: 0n, transition_type: 'entity' },
        { position: { x: -119, y: 63, z: 301 }, runtime_id: 0, flags: 2, entity_unique_id: -8589934593n, transition_type: 'destroy' }
      ],
      extra: [{ position: { x: -118, y: 62, z: 302 }, runtime_id: 91, flags: 3, entity_unique_id: 0n, transition_type: 'create' }]
    }],
    ['dimension_data', {
      definitions: [dimension('minecraft:overworld', -64, 320, 'overworld', 0), dimension('minecraft:nether', 0, 128, 'nether', 1)]
    }],
    ['level_event', { event: 'start_rain', position: { x: 0, y: 0, z: 0 }, data: 45000 }],
    // --- chat and commands ----------------------------------------------------------------------
    ['command_request', {
      command: '/time set day',
      origin: { type: 'player', uuid: U('c3d2e1f0-a9b8-4c7d-8e6f-5a4b3c2d1e0f'), request_id: '', player_entity_id: 0n },
      internal: false,
      version: 'latest'
    }],
    ['command_output', {
      origin: { type: 'player', uuid: U('c3d2e1f0-a9b8-4c7d-8e6f-5a4b3c2d1e0f'), request_id: '', player_entity_id: 0n },
      output_type: 'allinfo',
      success_count: 1,
      output: [{ message_id: 'commands.time.set', success: true, parameters: ['1000'] }],
      has_data: false
    }],
    ['command_output', {
      origin: { type: 'player', uuid: U('c3d2e1f0-a9b8-4c7d-8e6f-5a4b3c2d1e0f'), request_id: 'req-7', player_entity_id: -12884901889n },
      output_type: 'dataset',
      success_count: 0,
      output: [{ message_id: 'commands.generic.unknown', success: false, parameters: ['foo', 'bar baz'] }, { message_id: 'commands.generic.usage', success: false, parameters: [] }],
      has_data: true,
      data: '{"statusCode":-2147483648}'
    }],
    ['emote', { entity_id: 2049n, emote_id: '4c8ae710-df2e-47cd-814d-cc7bf21a3d67', emote_length_ticks: 40, xuid: '2535412345678901', platform_id: '', flags: 'server_side' }],
    // --- vitals ----------------------------------------------------------------------------------
    ['mob_effect', { runtime_entity_id: 2049n, event_id: 'add', effect_id: 1, amplifier: 1, particles: true, duration: 600, tick: 12345n, ambient: false }],
    ['mob_effect', { runtime_entity_id: 2049n, event_id: 'remove', effect_id: 19, amplifier: 0, particles: false, duration: 0, tick: 12999n, ambient: true }],
    ['entity_event', { runtime_entity_id: 4097n, event_id: 'hurt_animation', data: 0, fire_at_position: undefined }],
    ['entity_event', { runtime_entity_id: 2049n, event_id: 'death_animation', data: -3, fire_at_position: { x: 1.5, y: 65, z: -2.5 } }],
    ['death_info', { cause: 'death.attack.mob', messages: ['Alex_Builder', 'entity.zombie.name'] }],
    ['set_health', { health: 14 }],
    ['player_action', { runtime_entity_id: 2049n, action: 'respawn', position: { x: 0, y: 0, z: 0 }, result_position: { x: 0, y: 0, z: 0 }, face: -1 }],
    ['player_action', { runtime_entity_id: 2049n, action: 'start_break', position: { x: -120, y: 63, z: 301 }, result_position: { x: -120, y: 64, z: 301 }, face: 1 }],
    // --- items and inventory -----------------------------------------------------------------------
    ['inventory_content', {
      window_id: 'inventory',
      input: [
        { network_id: 320, count: 1, metadata: 0, has_stack_id: true, stack_id: sid('inventory_content', 17), block_runtime_id: 0, extra: { has_nbt: true, nbt: { version: 1, nbt: { type: 'compound', name: '', value: { Damage: { type: 'int', value: 7 }, ench: { type: 'list', value: { type: 'compound', value: [{ id: { type: 'short', value: 15 }, lvl: { type: 'short', value: 5 } }] } } } } }, can_place_on: [], can_destroy: [] } },
        air('inventory_content'),
        { network_id: 3, count: 12, metadata: 0, has_stack_id: true, stack_id: sid('inventory_content', 18), block_runtime_id: brid('inventory_content', 2186211206), extra: { has_nbt: 'false', can_place_on: ['minecraft:stone'], can_destroy: [] } }
      ],
      container: { container_id: 'anvil_input', dynamic_container_id: undefined },
      storage_item: air('inventory_content')
    }],
    ['inventory_slot', { window_id: 'armor', slot: 2, container: { container_id: 'armor', dynamic_container_id: undefined }, storage_item: air('inventory_slot'), item: { network_id: 350, count: 1, metadata: 0, has_stack_id: true, stack_id: sid('inventory_slot', 44), block_runtime_id: 0, extra: { has_nbt: 'false', can_place_on: [], can_destroy: [] } } }],
    ['mob_equipment', { runtime_entity_id: 2049n, item: { network_id: 261, count: 5, metadata: 0, has_stack_id: true, stack_id: sid('mob_equipment', 2), block_runtime_id: 0, extra: { has_nbt: 'false', can_place_on: [], can_destroy: [] } }, slot: 1, selected_slot: 1, window_id: 'inventory' }],
    ['player_hotbar', { selected_slot: 4, window_id: 'inventory', select_slot: true }],
    ['item_stack_request', {
      requests: [{
        request_id: -3,
        actions: [
          { type_id: 'place', legacy_type_id: 1, count: 4, source: { slot_type: { container_id: 'inventory', dynamic_container_id: undefined }, slot: 12, stack_id: 9 }, destination: { slot_type: { container_id: 'hotbar', dynamic_container_id: undefined }, slot: 0, stack_id: 0 } },
          { type_id: 'swap', legacy_type_id: 2, source: { slot_type: { container_id: 'hotbar', dynamic_container_id: undefined }, slot: 1, stack_id: 3 }, destination: { slot_type: { container_id: 'inventory', dynamic_container_id: undefined }, slot: 20, stack_id: 4 } },
          { type_id: 'drop', legacy_type_id: 3, count: 1, source: { slot_type: { container_id: 'hotbar', dynamic_container_id: undefined }, slot: 2, stack_id: 5 }, randomly: false },
          { type_id: 'mine_block', legacy_type_id: 11, hotbar_slot: 0, predicted_durability: 8, network_id: 17 }
        ],
        custom_names: [],
        cause: 'chat_public'
      }]
    }],
    ['item_stack_response', {
      responses: [
        { status: 'ok', request_id: -1, containers_presence: true, containers: [{ slot_type: { container_id: 'hotbar', dynamic_container_id: undefined }, slots: [{ slot: 0, hotbar_slot: 0, count: 3, item_stack_id_presence: true, item_stack_id: 41, custom_name: '', filtered_custom_name: '', durability_correction: 0 }] }] },
        { status: 'error', request_id: -3, containers_presence: false, containers: undefined }
      ]
    }],
    ['inventory_transaction', {
      transaction: {
        legacy: { legacy_request_id: 0, legacy_transactions: undefined },
        transaction_type: 'item_use',
        actions: [],
        transaction_data: {
          action_type: 'click_block', trigger_type: 'player_input', block_position: { x: 1, y: -61, z: 2 }, face: 1, hotbar_slot: 3,
          held_item: { network_id: 3, count: 12, metadata: 0, has_stack_id: true, stack_id: sid('inventory_transaction', 18), block_runtime_id: brid('inventory_transaction', 2186211206), extra: { has_nbt: 'false', can_place_on: [], can_destroy: [] } },
          player_pos: { x: 0.5, y: -58.375, z: 0.5 }, click_pos: { x: 0.5, y: 1, z: 0.25 }, block_runtime_id: 3727764076, client_prediction: 'success', client_cooldown_state: 'off'
        }
      }
    }],
    ['inventory_transaction', {
      transaction: {
        legacy: { legacy_request_id: 0, legacy_transactions: undefined },
        transaction_type: 'item_use_on_entity',
        actions: [],
        transaction_data: { entity_runtime_id: 4097n, action_type: 'attack', hotbar_slot: 0, held_item: air('inventory_transaction'), player_pos: { x: 1, y: 65.625, z: 2 }, click_pos: { x: 2.5, y: 64.5, z: 2 } }
      }
    }],
    ['completed_using_item', { used_item_id: 261, use_method: 'eat' }],
    ['animate', { action_id: 'swing_arm', runtime_entity_id: 2049n, data: 0, has_swing_source: true, swing_source: 'attack' }],
    ['interact', { action_id: 'open_inventory', target_entity_id: 2049n, has_position: false, position: undefined }],
    ['container_open', { window_id: 'inventory', window_type: 'inventory', coordinates: { x: 0, y: -60, z: 0 }, runtime_entity_id: -1n }],
    ['container_close', { window_id: 'inventory', window_type: 'inventory', server: false }],
    // --- crafting and containers ---------------------------------------------------------------------
    ['crafting_data', withUuids(craftingDataParams(types, [
      { kind: 'shaped', id: 'minecraft:wooden_pickaxe', width: 3, height: 3, cells: [{ tag: 'minecraft:planks', count: 1 }, { tag: 'minecraft:planks', count: 1 }, { tag: 'minecraft:planks', count: 1 }, null, { name: 'stick', count: 1 }, null, null, { name: 'stick', count: 1 }, null], output: [{ name: 'wooden_pickaxe', count: 1 }], networkId: 7 },
      { kind: 'shaped', id: 'minecraft:stick', width: 1, height: 2, cells: [{ tag: 'minecraft:planks', count: 1 }, { tag: 'minecraft:planks', count: 1 }], output: [{ name: 'stick', count: 4 }], networkId: 8 },
      { kind: 'shapeless', id: 'minecraft:oak_planks', cells: [{ name: 'oak_log', count: 1 }], output: [{ name: 'oak_planks', count: 4 }], networkId: 9 }
    ], (name) => ({ wooden_pickaxe: 312, stick: 320, oak_planks: 5 })[name]))],
    ['container_set_data', { window_id: 'first', property: 0, value: 37 }],
    ['container_set_data', { window_id: '5', property: 2, value: 1600 }],
    // --- signs and books ---------------------------------------------------------------------------------
    ['block_entity_data', { position: { x: 2, y: -60, z: -3 }, nbt: { type: 'compound', name: '', value: {
      id: { type: 'string', value: 'Sign' }, x: { type: 'int', value: 2 }, y: { type: 'int', value: -60 }, z: { type: 'int', value: -3 },
      IsWaxed: { type: 'byte', value: 0 },
      FrontText: { type: 'compound', value: { Text: { type: 'string', value: 'Hello\nworld' }, TextOwner: { type: 'string', value: '' }, SignTextColor: { type: 'int', value: -16777216 }, IgnoreLighting: { type: 'byte', value: 0 } } },
      BackText: { type: 'compound', value: { Text: { type: 'string', value: '' }, TextOwner: { type: 'string', value: '' }, SignTextColor: { type: 'int', value: -16777216 }, IgnoreLighting: { type: 'byte', value: 0 } } }
    } } }],
    ['open_sign', { position: { x: 2, y: -60, z: -3 }, is_front: true }],
    ['open_sign', { position: { x: -5, y: 70, z: 1000 }, is_front: false }],
    ['book_edit', { inventory_slot: 4, type: 'replace_page', page_number: 1, text: 'Page two', photo_name: '' }],
    ['book_edit', { inventory_slot: 12, type: 'sign', title: 'Diary', author: 'ClawBot', xuid: '' }],
    ['book_edit', { inventory_slot: 0, type: 'swap_pages', page1: 0, page2: 3 }],
    // --- trading ---------------------------------------------------------------------------------------
    ['update_trade', {
      window_id: 'first', window_type: 'trading', size: 0, trade_tier: 1, villager_unique_id: 4097n, entity_unique_id: 2049n,
      display_name: 'entity.villager.farmer', new_trading_ui: true, economic_trades: true,
      offers: { type: 'compound', name: '', value: {
        Recipes: { type: 'list', value: { type: 'compound', value: [tradeOffer('minecraft:wheat', 22, null, 'minecraft:emerald', 1, 20, 3, 16, 2, 0, 7),
          tradeOffer('minecraft:emerald', 1, ['minecraft:book', 1], 'minecraft:bookshelf', 1, 1, 0, 12, 0, 1, 8)] } },
        TierExpRequirements: { type: 'list', value: { type: 'compound', value: [{ '0': { type: 'int', value: 0 } }, { '1': { type: 'int', value: 10 } }] } }
      } }
    }],
    ['item_stack_request', {
      requests: [{
        request_id: -11,
        actions: craftActions(types),
        custom_names: [],
        cause: 'chat_public'
      }]
    }]
  ]
}

// One `Recipes` entry of update_trade's offers, with the NBT kinds the game writes (counts as bytes, prices as ints).
function tradeOffer (a, aCount, b, sell, sellCount, baseA, uses, maxUses, demand, tier, netId) {
  const item = (name, count) => ({ type: 'compound', value: { Count: { type: 'byte', value: count }, Damage: { type: 'short', value: 0 }, Name: { type: 'string', value: name }, WasPickedUp: { type: 'byte', value: 0 } } })
  return {
    buyA: item(a, aCount),
    ...(b ? { buyB: item(b[0], b[1]) } : {}),
    buyCountA: { type: 'int', value: baseA },
    buyCountB: { type: 'int', value: b ? b[1] : 0 },
    demand: { type: 'int', value: demand },
    maxUses: { type: 'int', value: maxUses },
    netId: { type: 'int', value: netId },
    priceMultiplierA: { type: 'float', value: 0.05 },
    priceMultiplierB: { type: 'float', value: 0 },
    rewardExp: { type: 'byte', value: 1 },
    sell: item(sell, sellCount),
    tier: { type: 'int', value: tier },
    traderExp: { type: 'int', value: 2 },
    uses: { type: 'int', value: uses }
  }
}

// Registers every `uuid` field of a tree with U() (see the UUID pre-swap above).
function withUuids (v) {
  if (Array.isArray(v)) v.forEach(withUuids)
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { if (k === 'uuid' && typeof x === 'string') U(x); else withUuids(x) }
  return v
}

// A craft request (craft_recipe_auto, results_deprecated, consume, place from the created output) in the layout of
// `types`: before 1.26.40 crafts are counted twice and items named by network id / old ingredient kinds.
function craftActions (types) {
  const old = JSON.stringify(types.ItemStackRequest).includes('times_crafted_2')
  const legacy = (id) => old ? {} : { legacy_type_id: id }
  const slot = (c, i, id) => ({ slot_type: { container_id: c, dynamic_container_id: undefined }, slot: i, stack_id: id })
  const ingredients = old
    ? [{ type: 'item_tag', tag: 'minecraft:planks', count: 3 }, { type: 'string_id_meta', name: 'minecraft:stick', metadata: 32767, count: 2 }]
    : [{ type: 'item_tag', legacy_type: 0, tag: 'minecraft:planks', count: 3 }, { type: 'name', legacy_type: 0, name: 'minecraft:stick', metadata: 32767, count: 2 }]
  const extra = { has_nbt: 'false', can_place_on: [], can_destroy: [] }
  const result = old
    ? { network_id: 312, count: 1, metadata: 0, block_runtime_id: 0, extra }
    : { type: 'name', legacy_type: 0, name: 'minecraft:wooden_pickaxe', metadata: 0, count: 1, block_runtime_id: 0, extra }
  return [
    { type_id: 'craft_recipe_auto', ...legacy(13), recipe_network_id: 7, ...(old ? { times_crafted_2: 1 } : {}), times_crafted: 1, ingredients },
    { type_id: 'results_deprecated', ...legacy(19), result_items: [result], times_crafted: 1 },
    { type_id: 'consume', ...legacy(5), count: 3, source: slot('inventory', 9, 21) },
    { type_id: 'consume', ...legacy(5), count: 2, source: slot('hotbar', 1, 22) },
    { type_id: 'place', ...legacy(1), count: 1, source: slot('creative_output', 50, -11), destination: slot('inventory', 10, 0) }
  ]
}

// bedrock-protocol writes item NBT only when the `has_nbt` mapper is given the boolean `true`
// (its switch compares against a boolean); the mapper's value is the name "true", which is what
// the recorded params (and the Rust codec) use.
function mapperBooleans (v) {
  if (Array.isArray(v)) return v.map(mapperBooleans)
  if (v && typeof v === 'object') {
    const o = {}
    for (const [k, x] of Object.entries(v)) o[k] = k === 'has_nbt' && typeof x === 'boolean' ? String(x) : mapperBooleans(x)
    return o
  }
  return v
}

function make (version) {
  const ser = createSerializer(version)
  const des = createDeserializer(version)
  const data = require('minecraft-data')('bedrock_' + version)
  const types = data.protocol.types
  const out = []
  for (const [name, given] of packets(types, data.version.version)) {
    const typeName = 'packet_' + name
    if (!types[typeName]) { console.warn(`${version}: no ${name}, skipped`); continue }
    const params = prune(types, types[typeName], merge(neutral(types, types[typeName], undefined, given), given))
    let buf, back
    try {
      buf = ser.createPacketBuffer({ name, params: forBedrockProtocol(params) })
      back = des.parsePacketBuffer(buf)
    } catch (e) {
      throw new Error(`${version} ${name}: ${e.message}\nparams ${JSON.stringify(toJson(params))}${buf ? '\nhex ' + buf.toString('hex') : ''}`)
    }
    if (back.data.name !== name) throw new Error(`${name}: read back as ${back.data.name}`)
    out.push({ name, params: mapperBooleans(toJson(params)), hex: buf.toString('hex') })
  }
  const file = path.join(__dirname, `${version}.json`)
  fs.writeFileSync(file, JSON.stringify(out, null, 1) + '\n')
  console.log(`wrote ${out.length} vectors to ${file}`)
}

for (const v of versions) make(v)
