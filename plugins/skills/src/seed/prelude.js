// The helpers of `mineflayer-action-skill-helper/v1`, built on the harness's commands.
//
// Evaluated once per run inside the sandbox, after the built-ins are frozen. It receives `raw`
// (the harness commands the helpers are made of, each a helper call with its own evidence),
// `note` (records a helper event: started, completed or failed), `raise` (throws a HelperError
// with a code) and the skill's allowlist; it returns the frozen `ctx` the skill sees, holding
// only the allowlisted helpers. `raw` stays in this closure: the skill cannot reach it.
(function (raw, note, raise, allow) {
  'use strict';
  const BRIDGE_TICKS = 100; // a bridge call waits at most 5 s for its action
  const CONTROL_TICKS_MAX = 100; // a control state is released after at most 5 s
  const WALK_SPEED = 4.3; // blocks per second (sprint 5.6)

  // --- small tools -----------------------------------------------------------------------------
  const strip = (n) => String(n).replace(/^minecraft:/, '');
  const int = (v, lo, hi, dflt) => {
    const n = Number(v);
    if (v === undefined || v === null || !Number.isFinite(n)) return dflt;
    return Math.min(hi, Math.max(lo, Math.floor(n)));
  };
  const vec = (p, what) => {
    if (Array.isArray(p) && p.length === 3) p = { x: p[0], y: p[1], z: p[2] };
    if (p && typeof p === 'object' && p.position && typeof p.position === 'object') p = p.position;
    const ok = p && typeof p === 'object' && [p.x, p.y, p.z].every((c) => Number.isFinite(Number(c)));
    if (!ok) raise('invalid_params', `${what} must be {x, y, z} with numbers`);
    return { x: Number(p.x), y: Number(p.y), z: Number(p.z) };
  };
  const cellOf = (p) => ({ x: Math.floor(p.x), y: Math.floor(p.y), z: Math.floor(p.z) });
  const centre = (c) => ({ x: c.x + 0.5, y: c.y + 0.5, z: c.z + 0.5 });
  const dist = (a, b) => Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z);
  const feet = () => raw.pos({}).pos;
  const why = (r) => (r && r.error && r.error.message) || (r && r.reason) || (r && r.status) || 'unknown';
  const errCode = (r) => (r && r.error && r.error.code) || (r && r.code) || '';
  const blocked = (code, reason, extra) => Object.assign({ status: 'blocked', code, reason }, extra || {});
  const items = () => {
    const inv = raw.inventory({});
    const out = [];
    (inv.slots || []).forEach((s, slot) => {
      if (s) out.push({ name: strip(s.name), count: s.count, slot });
    });
    return out;
  };
  const countOf = (pred) => items().filter((i) => pred(i.name)).reduce((n, i) => n + i.count, 0);
  const summary = () => {
    const by = {};
    for (const i of items()) by[i.name] = (by[i.name] || 0) + i.count;
    return Object.keys(by).sort().map((name) => ({ name, count: by[name] }));
  };

  // Walks until within `range` of `target` (nothing when already there).
  async function approach(target, range) {
    if (dist(feet(), target) <= range + 0.5) return null;
    const w = await raw.walk({ x: target.x, y: target.y, z: target.z, range });
    if (w.status !== 'done') return blocked('unreachable', `walk: ${why(w)}`);
    return null;
  }

  // The nearest block whose name is `name` (or contains it), from `find`.
  function nearest(name, radius) {
    const f = raw.find({ block: name, radius, count: 8 });
    const list = f.blocks || [];
    return list.find((b) => strip(b.name) === name) || list[0] || null;
  }

  // --- the helpers -----------------------------------------------------------------------------
  function position() {
    const p = feet();
    return { x: p.x, y: p.y, z: p.z };
  }

  function inventoryItems() {
    return items();
  }

  async function observe(options) {
    const o = options && typeof options === 'object' ? options : {};
    const radius = int(o.radius, 1, 8, 4);
    const at = raw.pos({});
    const vitals = raw.vitals({});
    const scan = raw.compact_scan({ radius, radiusY: 2 });
    const near = raw.nearby({ radius: int(o.entityRadius, 1, 32, 16) });
    const list = (k) => ((near.nearby && near.nearby[k]) || []).slice(0, 8);
    let container = null;
    if (o.container !== undefined) {
      const c = cellOf(vec(o.container, 'observe: options.container'));
      const opened = await raw.open(c);
      if (opened.status === 'done') {
        container = {
          block: strip(opened.block || ''),
          pos: c,
          windowType: opened.windowType,
          items: (opened.items || []).map((s) => ({ slot: s.slot, name: strip(s.item.name), count: s.item.count })),
        };
        raw.close({});
      } else {
        container = { pos: c, error: `${errCode(opened) || opened.status}: ${why(opened)}` };
      }
    } else {
      const w = raw.container ? raw.container({}) : { open: false };
      if (w.open) {
        container = {
          block: strip(w.block || ''),
          pos: w.pos,
          windowType: w.windowType,
          items: (w.items || []).map((s) => ({ slot: s.slot, name: strip(s.item.name), count: s.item.count })),
        };
      }
    }
    const counts = {};
    for (const [k, n] of Object.entries(scan.counts || {})) counts[strip(k)] = n;
    return {
      status: 'ok',
      position: at.pos,
      yawDegrees: at.yawDegrees,
      health: vitals.health,
      food: vitals.hunger,
      inventory: summary(),
      worldStateSummary: {
        radius,
        loaded: scan.loaded,
        counts,
        notable: (scan.notable || []).slice(0, 12).map((b) => ({ name: strip(b.name), x: b.x, y: b.y, z: b.z })),
      },
      entities: {
        players: list('players').map((p) => ({ name: p.name, distance: p.distance })),
        mobs: list('mobs').map((m) => ({ type: strip(m.type || ''), distance: m.distance })),
        items: list('items').map((i) => ({ item: strip(i.item || ''), distance: i.distance })),
      },
      container,
    };
  }

  async function wait(args) {
    const ms = typeof args === 'number' ? args : args && args.durationMs;
    const ticks = int(Math.ceil(Number(ms) / 50), 0, 200, 0);
    if (ticks > 0) await raw.waitTicks(ticks);
    return { status: 'ok', waitedMs: ticks * 50 };
  }

  async function collectLogs(targetCount) {
    const want = int(targetCount, 1, 64, 1);
    const isLog = (n) => /_log$/.test(n);
    const start = countOf(isLog);
    let mined = 0;
    for (let tries = 0; tries < want * 3 + 2 && countOf(isLog) - start < want; tries++) {
      const b = nearest('_log', 32);
      const progress = () => ({ collected: countOf(isLog) - start, mined });
      if (!b) return blocked('no_logs_found', 'no log within 32 blocks (loaded chunks only)', progress());
      const miss = await approach({ x: b.x + 0.5, y: b.y, z: b.z + 0.5 }, 2);
      if (miss) return Object.assign(miss, progress());
      const m = await raw.mine({ x: b.x, y: b.y, z: b.z, autoTool: true });
      if (m.status !== 'done') return blocked('dig_failed', `mine: ${why(m)}`, progress());
      mined += 1;
      await raw.waitTicks(5); // the drop is picked up and the inventory updated
    }
    const collected = countOf(isLog) - start;
    if (collected < want) return blocked('no_progress', `collected ${collected} of ${want} logs`, { collected, mined });
    return { status: 'collected', collected, mined, count: countOf(isLog) };
  }

  async function mineBlock(blockName, targetCount, searchDistance) {
    if (typeof blockName !== 'string' || !blockName) raise('invalid_params', 'mineBlock(blockName, targetCount?, searchDistance?) needs a block name');
    const name = strip(blockName);
    const want = int(targetCount, 1, 64, 1);
    const radius = int(searchDistance, 1, 64, 32);
    let mined = 0;
    for (let tries = 0; tries < want * 3 + 2 && mined < want; tries++) {
      const b = nearest(name, radius);
      if (!b) return blocked('not_found', `no ${name} within ${radius} blocks (loaded chunks only)`, { mined });
      const miss = await approach({ x: b.x + 0.5, y: b.y, z: b.z + 0.5 }, 3);
      if (miss) return Object.assign(miss, { mined });
      const m = await raw.mine({ x: b.x, y: b.y, z: b.z, autoTool: true });
      if (m.status !== 'done') return blocked('dig_failed', `mine: ${why(m)}`, { mined });
      mined += 1;
    }
    if (mined < want) return blocked('no_progress', `mined ${mined} of ${want} ${name}`, { mined });
    return { status: 'mined', block: name, mined };
  }

  const CRAFT_CODES = {
    NEEDS_TABLE: 'needs_crafting_table',
    MISSING_INGREDIENTS: 'missing_ingredients',
    NO_RECIPE: 'no_recipe',
    INVENTORY_FULL: 'inventory_full',
  };
  function crafted(item, r) {
    if (r.status === 'done') {
      return { status: 'crafted', item, count: r.count, gained: r.gained, spent: r.spent, confirmed: r.confirmed };
    }
    return blocked(CRAFT_CODES[errCode(r)] || 'craft_failed', `craft ${item}: ${why(r)}`);
  }

  async function craftItem(itemName, count) {
    if (typeof itemName !== 'string' || !itemName) raise('invalid_params', 'craftItem(itemName) needs an item name');
    const item = strip(itemName);
    const req = { item };
    if (count !== undefined) req.count = int(count, 1, 64, 1);
    return crafted(item, await raw.craft(req));
  }

  async function craftWithTable(itemName, count) {
    if (typeof itemName !== 'string' || !itemName) raise('invalid_params', 'craftWithTable(itemName) needs an item name');
    const item = strip(itemName);
    const f = raw.find({ block: 'crafting_table', radius: 6, count: 4 });
    const table = (f.blocks || []).find((b) => b.distance <= 4.5);
    if (!table) {
      return blocked('no_crafting_table', 'no placed crafting table within reach: place one first (placeBlock("crafting_table", …))');
    }
    const req = { item, table: { x: table.x, y: table.y, z: table.z } };
    if (count !== undefined) req.count = int(count, 1, 64, 1);
    const r = await raw.craft(req);
    raw.close({}); // the table's window stays open after a craft; a closed one is no error here
    return Object.assign(crafted(item, r), { table: req.table });
  }

  async function consumeItem(itemName) {
    if (typeof itemName !== 'string' || !itemName) raise('invalid_params', 'consumeItem(itemName) needs an item name');
    const item = strip(itemName);
    const r = await raw.eat({ item });
    if (r.status === 'done') return { status: 'consumed', item, hunger: r.hunger, itemCount: r.itemCount };
    const code = { NOT_HUNGRY: 'not_hungry', NO_ITEM: 'missing_item', INVALID_TARGET: 'not_consumable' }[errCode(r)];
    return blocked(code || 'consume_failed', `eat ${item}: ${why(r)}`);
  }

  const PLACE_CODES = {
    OCCUPIED: 'occupied',
    NO_SUPPORT: 'no_support',
    NO_ITEM: 'missing_item',
    OUT_OF_REACH: 'out_of_reach',
    NO_LINE_OF_SIGHT: 'no_line_of_sight',
    NOT_LOADED: 'not_loaded',
  };
  async function place(item, target) {
    const here = raw.block(target);
    if (here.block && strip(here.block.name) === item) return { status: 'already_present', block: item, pos: target };
    const miss = await approach(centre(target), 3);
    if (miss) return Object.assign(miss, { pos: target });
    const r = await raw.place({ item, x: target.x, y: target.y, z: target.z });
    if (r.status === 'done') return { status: 'placed', block: strip(r.block || item), pos: target, against: r.against, confirmed: r.confirmed };
    return blocked(PLACE_CODES[errCode(r)] || 'place_failed', `place ${item} at ${target.x},${target.y},${target.z}: ${why(r)}`, { pos: target });
  }

  async function placeBlock(itemName, targetPosition) {
    if (typeof itemName !== 'string' || !itemName) raise('invalid_params', 'placeBlock(itemName, targetPosition) needs an item name');
    return place(strip(itemName), cellOf(vec(targetPosition, 'placeBlock: targetPosition')));
  }

  async function buildPattern(args) {
    const a = args && typeof args === 'object' ? args : {};
    const list = Array.isArray(a) ? a : a.blocks || a.pattern;
    if (!Array.isArray(list) || list.length === 0 || list.length > 64) {
      raise('invalid_params', 'buildPattern({origin?, item?, blocks: [{x, y, z, item?}]}) takes 1–64 blocks');
    }
    const origin = a.origin !== undefined ? cellOf(vec(a.origin, 'buildPattern: origin')) : cellOf(feet());
    const cells = list.map((b, i) => {
      const off = vec(b, `buildPattern: blocks[${i}]`);
      const item = b.item || b.block || b.name || a.item;
      if (typeof item !== 'string') raise('invalid_params', `buildPattern: blocks[${i}] needs an item (or give item for all)`);
      return { item: strip(item), pos: cellOf({ x: origin.x + off.x, y: origin.y + off.y, z: origin.z + off.z }) };
    });
    cells.sort((p, q) => p.pos.y - q.pos.y); // bottom up: each block has its support
    const done = [];
    for (const c of cells) {
      const r = await place(c.item, c.pos);
      done.push({ pos: c.pos, item: c.item, status: r.status });
      if (r.status !== 'placed' && r.status !== 'already_present') {
        return blocked(r.code, r.reason, { placed: done.filter((d) => d.status === 'placed').length, of: cells.length, blocks: done });
      }
    }
    return { status: 'built', placed: done.filter((d) => d.status === 'placed').length, of: cells.length, origin, blocks: done };
  }

  async function say(text) {
    const message = String(text === undefined ? '' : text).slice(0, 256);
    if (!message) raise('invalid_params', 'say(text) needs a text');
    const r = await raw.chat({ message });
    if (r.status === 'done') return { status: 'delivered', message };
    return blocked(errCode(r) || 'not_delivered', `chat: ${why(r)}`);
  }

  // --- the bounded mineflayer bridge -----------------------------------------------------------
  let control = null; // { move, control, sprint } while a movement control is held
  let sprinting = false;
  const positional = (args, names) => {
    if (Array.isArray(args)) return args;
    if (args && typeof args === 'object' && !names.some((n) => n in args) && 'x' in args) return [args];
    if (args && typeof args === 'object') return names.map((n) => args[n]);
    return [args];
  };
  async function bounded(p, onTimeout) {
    let timedOut = false;
    const timer = raw.waitTicks(BRIDGE_TICKS).then(() => { timedOut = true; return null; });
    const r = await Promise.race([p, timer]);
    if (r === null && timedOut) {
      if (onTimeout) onTimeout();
      return { status: 'timeout', reason: `no answer within ${BRIDGE_TICKS * 50} ms` };
    }
    return r;
  }
  async function release() {
    if (!control) return false;
    const held = control;
    control = null;
    raw.abort_walk({});
    await held.move;
    return true;
  }
  const DIRECTIONS = { forward: 0, back: 180, left: -90, right: 90 };
  async function setControlState(name, state, durationMs) {
    if (name === 'sprint') {
      sprinting = !!state;
      return { status: 'ok', control: name, state: sprinting };
    }
    if (!(name in DIRECTIONS)) {
      return blocked('unsupported_control', `control ${name} is not supported (forward, back, left, right, sprint)`);
    }
    if (!state) return { status: 'ok', control: name, state: false, released: await release() };
    await release();
    const ticks = int(Math.ceil(Number(durationMs === undefined ? 1000 : durationMs) / 50), 1, CONTROL_TICKS_MAX, 20);
    const at = raw.pos({});
    // Bedrock yaw: 0 faces +Z, 90 faces −X.
    const yaw = ((at.yawDegrees + DIRECTIONS[name]) * Math.PI) / 180;
    const reach = Math.max(1, ((sprinting ? 5.6 : WALK_SPEED) * ticks) / 20);
    const to = { x: at.pos.x - Math.sin(yaw) * reach, y: at.pos.y, z: at.pos.z + Math.cos(yaw) * reach };
    const move = raw.move({ x: to.x, y: to.y, z: to.z, sprint: sprinting });
    const held = { move, control: name };
    control = held;
    // Released when its time is up, by clearControlStates, or when the run ends.
    raw.waitTicks(ticks).then(() => (control === held ? release() : null));
    return { status: 'ok', control: name, state: true, releaseAfterMs: ticks * 50 };
  }
  async function mineflayer(method, args) {
    switch (method) {
      case 'lookAt': {
        const [p] = positional(args, ['position']);
        const t = vec(p, 'lookAt: position');
        const r = await raw.face(t);
        return r.status === 'done' ? { status: 'ok', yawDegrees: r.yawDegrees, pitchDegrees: r.pitchDegrees } : blocked(errCode(r) || 'failed', why(r));
      }
      case 'lookAtNearestBlock': {
        const [name, maxDistance] = positional(args, ['blockName', 'maxDistance']);
        const given = name || (args && (args.name || args.block));
        if (typeof given !== 'string') raise('invalid_params', 'lookAtNearestBlock needs {blockName, maxDistance?}');
        const radius = int(maxDistance, 2, 32, 16);
        const b = nearest(strip(given), radius);
        if (!b) return blocked('not_found', `no ${strip(given)} within ${radius} blocks`);
        const r = await raw.face(centre(b));
        return r.status === 'done' ? { status: 'ok', block: { name: strip(b.name), x: b.x, y: b.y, z: b.z } } : blocked(errCode(r) || 'failed', why(r));
      }
      case 'setControlState': {
        const [name, state, durationMs] = positional(args, ['control', 'state', 'durationMs']);
        return setControlState(name, state, durationMs);
      }
      case 'clearControlStates': {
        sprinting = false;
        return { status: 'ok', cleared: await release() };
      }
      case 'swingArm': {
        const r = await raw['@swing_arm']({});
        return r.status === 'done' ? { status: 'ok', swung: true } : blocked(errCode(r) || 'failed', why(r));
      }
      case 'equipByName': {
        const [name] = positional(args, ['name']);
        const given = name || (args && (args.itemName || args.item));
        if (typeof given !== 'string') raise('invalid_params', 'equipByName needs {name}');
        const r = await bounded(raw.equip({ item: strip(given) }));
        return r.status === 'done' ? { status: 'ok', item: strip(given), slot: r.slot } : blocked(errCode(r) || r.status, why(r));
      }
      case 'activateItem': {
        const r = await bounded(raw.use({}), () => raw.abort_use({}));
        return r.status === 'done' ? { status: 'ok', item: r.item } : blocked(errCode(r) || r.status, why(r));
      }
      case 'deactivateItem': {
        const r = raw.abort_use({});
        return { status: 'ok', stopped: r.status === 'done' };
      }
      case 'chat': {
        const [message] = positional(args, ['message']);
        const r = await raw.chat({ message: String(message === undefined ? '' : message).slice(0, 256) });
        return r.status === 'done' ? { status: 'ok' } : blocked(errCode(r) || 'failed', why(r));
      }
      default:
        return raise('unsupported_method', `ctx.mineflayer: ${String(method)} is not a bridge method (lookAt, lookAtNearestBlock, setControlState, clearControlStates, swingArm, equipByName, activateItem, deactivateItem, chat)`);
    }
  }

  // --- recording -------------------------------------------------------------------------------
  const record = (helper, fn, sync) => {
    if (sync) {
      return function (...args) {
        const seq = note({ phase: 'started', helper, args });
        try {
          const result = fn(...args);
          note({ phase: 'completed', seq, result });
          return result;
        } catch (e) {
          note({ phase: 'failed', seq, error: String((e && e.message) || e), code: (e && e.code) || null });
          throw e;
        }
      };
    }
    return async function (...args) {
      const seq = note({ phase: 'started', helper, args });
      try {
        const result = await fn(...args);
        note({ phase: 'completed', seq, result });
        return result;
      } catch (e) {
        note({ phase: 'failed', seq, error: String((e && e.message) || e), code: (e && e.code) || null });
        throw e;
      }
    };
  };
  const HELPERS = {
    position: record('position', position, true),
    inventoryItems: record('inventoryItems', inventoryItems, true),
    observe: record('observe', observe),
    wait: record('wait', wait),
    collectLogs: record('collectLogs', collectLogs),
    mineBlock: record('mineBlock', mineBlock),
    craftItem: record('craftItem', craftItem),
    craftWithTable: record('craftWithTable', craftWithTable),
    consumeItem: record('consumeItem', consumeItem),
    placeBlock: record('placeBlock', placeBlock),
    buildPattern: record('buildPattern', buildPattern),
    say: record('say', say),
    mineflayer: record('mineflayer', mineflayer),
  };
  const ctx = {};
  for (const name of allow) if (HELPERS[name]) ctx[name] = HELPERS[name];
  return Object.freeze(ctx);
})
