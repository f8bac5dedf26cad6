// clawcraft live map: draws the frames of /stream on a canvas and its side panel, sends the
// command box's lines to /command. A frame carries only what changed (bots, entities, panels,
// columns); no frame comes while nothing changes.
'use strict';

const COLORS = {
  bot: '#ffffff', player: '#285ae6', hostile: '#dc1e1e', mob: '#f09628', item: '#fae628',
  path: '#00e5ff', target: '#ff40ff', void: '#101010',
};
const NO_TOP = -32768;
const token = new URLSearchParams(location.search).get('token');
const withToken = (path) => token ? `${path}?token=${encodeURIComponent(token)}` : path;

// The page's state, readable by tests (window.clawcraftMap).
const S = {
  tiles: new Map(),      // "d,x,z" → {d, x, z, loaded, total, rgb, h, canvas, shadedFor}
  bots: [], entities: [], events: [],
  panels: {},            // bot name → {status, vitals, inventory}, from the stream
  selected: null,        // a bot's name
  scale: 8,              // pixels per block
  frames: 0, connected: false,
  centre: { x: 0, z: 0 },
  lastAnswer: null,
  paused: false,         // the view holds still; frames are kept and shown on resume
  held: null,            // {bots, entities} that came while paused
};
window.clawcraftMap = S;

const canvas = document.getElementById('map');
const ctx = canvas.getContext('2d');
const $ = (id) => document.getElementById(id);

function selectedBot() {
  return S.bots.find((b) => b.name === S.selected) || S.bots[0] || null;
}

// World (x, z) → canvas pixel; the selected bot is at the centre.
S.toScreen = (x, z) => ({
  x: canvas.width / 2 + (x - S.centre.x) * S.scale,
  y: canvas.height / 2 + (z - S.centre.z) * S.scale,
});
S.toWorld = (px, py) => ({
  x: S.centre.x + (px - canvas.width / 2) / S.scale,
  z: S.centre.z + (py - canvas.height / 2) / S.scale,
});

function decodeTile(t) {
  const bin = atob(t.cells);
  const rgb = new Uint8ClampedArray(256 * 3);
  const h = new Int16Array(256);
  for (let i = 0; i < 256; i++) {
    const o = i * 5;
    rgb[i * 3] = bin.charCodeAt(o); rgb[i * 3 + 1] = bin.charCodeAt(o + 1); rgb[i * 3 + 2] = bin.charCodeAt(o + 2);
    const v = bin.charCodeAt(o + 3) | (bin.charCodeAt(o + 4) << 8);
    h[i] = v >= 0x8000 ? v - 0x10000 : v;
  }
  return { d: t.d, x: t.x, z: t.z, loaded: t.loaded, total: t.total, rgb, h, canvas: null, shadedFor: null };
}

const key = (d, x, z) => `${d},${x},${z}`;

function heightAt(d, bx, bz) {
  const t = S.tiles.get(key(d, bx >> 4, bz >> 4));
  if (!t) return NO_TOP;
  return t.h[(bz & 15) * 16 + (bx & 15)];
}

// Brighter the higher above the bot's ground, with a relief step against the northern neighbour
// (as map_image shades).
function shade(t, refY) {
  const c = t.canvas || (t.canvas = document.createElement('canvas'));
  c.width = 16; c.height = 16;
  const g = c.getContext('2d');
  const img = g.createImageData(16, 16);
  for (let i = 0; i < 256; i++) {
    const top = t.h[i];
    let r = 16, gr = 16, b = 16;
    if (top !== NO_TOP) {
      let light = Math.min(1.4, Math.max(0.6, 1 + (top - refY) * 0.02));
      const north = heightAt(t.d, t.x * 16 + (i & 15), t.z * 16 + (i >> 4) - 1);
      if (north !== NO_TOP && north < top) light *= 1.08;
      else if (north !== NO_TOP && north > top) light *= 0.92;
      r = t.rgb[i * 3] * light; gr = t.rgb[i * 3 + 1] * light; b = t.rgb[i * 3 + 2] * light;
    }
    img.data[i * 4] = r; img.data[i * 4 + 1] = gr; img.data[i * 4 + 2] = b; img.data[i * 4 + 3] = 255;
  }
  g.putImageData(img, 0, 0);
  t.shadedFor = refY;
}

function dot(x, z, r, color, outline) {
  const p = S.toScreen(x, z);
  ctx.beginPath();
  ctx.arc(p.x, p.y, r, 0, Math.PI * 2);
  ctx.fillStyle = color;
  ctx.fill();
  if (outline) { ctx.lineWidth = 1.5; ctx.strokeStyle = outline; ctx.stroke(); }
  return p;
}

function label(p, text, dy) {
  if (!text) return;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.lineWidth = 3; ctx.strokeStyle = 'rgba(0,0,0,.8)';
  ctx.strokeText(text, p.x, p.y - dy);
  ctx.fillStyle = '#fff';
  ctx.fillText(text, p.x, p.y - dy);
}

function draw() {
  const bot = selectedBot();
  if (bot && bot.pos) S.centre = { x: bot.pos[0], z: bot.pos[2] };
  const dim = bot && bot.dimension != null ? bot.dimension : 0;
  const refY = bot && bot.pos ? Math.floor(bot.pos[1] - 1e-3) : 0;
  ctx.imageSmoothingEnabled = false;
  ctx.fillStyle = COLORS.void;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const side = 16 * S.scale;
  for (const t of S.tiles.values()) {
    if (t.d !== dim) continue;
    const p = S.toScreen(t.x * 16, t.z * 16);
    if (p.x > canvas.width || p.y > canvas.height || p.x + side < 0 || p.y + side < 0) continue;
    if (t.shadedFor !== refY) shade(t, refY);
    ctx.drawImage(t.canvas, Math.round(p.x), Math.round(p.y), side, side);
    if (t.loaded < t.total) {
      // Chunk load state: a column still missing sub-chunks is hatched.
      ctx.save();
      ctx.beginPath(); ctx.rect(p.x, p.y, side, side); ctx.clip();
      ctx.strokeStyle = 'rgba(0,0,0,.45)'; ctx.lineWidth = 2;
      for (let k = -side; k < side; k += 8) { ctx.beginPath(); ctx.moveTo(p.x + k, p.y + side); ctx.lineTo(p.x + k + side, p.y); ctx.stroke(); }
      ctx.restore();
    }
    if (S.scale >= 4) {
      ctx.strokeStyle = 'rgba(255,255,255,.12)'; ctx.lineWidth = 1;
      ctx.strokeRect(p.x + 0.5, p.y + 0.5, side - 1, side - 1);
    }
  }
  // Paths and targets of every bot in this dimension.
  for (const b of S.bots) {
    if (!b.pos || b.dimension !== dim) continue;
    if (b.path && b.path.length) {
      ctx.beginPath();
      const s = S.toScreen(b.pos[0], b.pos[2]);
      ctx.moveTo(s.x, s.y);
      for (const q of b.path) { const p = S.toScreen(q[0], q[2]); ctx.lineTo(p.x, p.y); }
      ctx.strokeStyle = COLORS.path; ctx.lineWidth = 3; ctx.lineJoin = 'round'; ctx.stroke();
    }
    if (b.target) {
      const p = S.toScreen(b.target[0], b.target[2]);
      ctx.beginPath(); ctx.arc(p.x, p.y, 7, 0, Math.PI * 2);
      ctx.strokeStyle = COLORS.target; ctx.lineWidth = 2; ctx.stroke();
    }
  }
  for (const e of S.entities) {
    if (e.mark === 'item') {
      const p = S.toScreen(e.pos[0], e.pos[2]);
      ctx.fillStyle = COLORS.item; ctx.fillRect(p.x - 3, p.y - 3, 6, 6);
      continue;
    }
    const p = dot(e.pos[0], e.pos[2], e.mark === 'player' ? 5 : 4.5, COLORS[e.mark], 'rgba(0,0,0,.6)');
    if (e.mark === 'player' || e.name) label(p, e.name, 9);
  }
  for (const b of S.bots) {
    if (!b.pos || b.dimension !== dim) continue;
    const p = dot(b.pos[0], b.pos[2], 6, COLORS.bot, b === bot ? '#ffd400' : '#000');
    // Heading: Bedrock yaw 0 faces +z (down), 90 faces −x (left); drawn from the rim outwards.
    const a = (b.yaw * Math.PI) / 180;
    const dx = -Math.sin(a), dz = Math.cos(a);
    ctx.beginPath();
    ctx.moveTo(p.x + dx * 7, p.y + dz * 7);
    ctx.lineTo(p.x + dx * 16, p.y + dz * 16);
    ctx.strokeStyle = '#ffffff'; ctx.lineWidth = 2.5; ctx.stroke();
    label(p, b.name, 11);
  }
}

function fillBots() {
  const sel = $('bots');
  const names = S.bots.map((b) => b.name);
  if ([...sel.options].map((o) => o.value).join('\n') !== names.join('\n')) {
    sel.innerHTML = '';
    for (const n of names) { const o = document.createElement('option'); o.value = o.textContent = n; sel.appendChild(o); }
  }
  if (!names.includes(S.selected)) S.selected = names[0] || null;
  sel.value = S.selected || '';
}

function applyFrame(f, init) {
  if (init || f.full) { S.tiles.clear(); S.panels = {}; }
  for (const k of f.removed || []) S.tiles.delete(key(k[0], k[1], k[2]));
  for (const t of f.tiles || []) {
    S.tiles.set(key(t.d, t.x, t.z), decodeTile(t));
    // Neighbours' relief depends on this column.
    const south = S.tiles.get(key(t.d, t.x, t.z + 1));
    if (south) south.shadedFor = null;
  }
  if (f.panels) Object.assign(S.panels, f.panels);
  S.frames++;
  if (S.paused) {
    S.held = S.held || {};
    if (f.bots) S.held.bots = f.bots;
    if (f.entities) S.held.entities = f.entities;
  } else {
    if (f.bots) S.bots = f.bots;
    if (f.entities) S.entities = f.entities;
    fillBots();
    draw();
  }
  if (f.panels || f.bots) showPanel();
}

// Freezes or resumes the view (the stream keeps flowing; tiles stay current).
S.pause = (on) => {
  S.paused = on;
  $('pause').textContent = on ? 'resume' : 'pause';
  if (!on && S.held) {
    const h = S.held; S.held = null;
    if (h.bots) S.bots = h.bots;
    if (h.entities) S.entities = h.entities;
    fillBots();
    showPanel();
  }
  draw();
};

function addEvents(list) {
  for (const e of list) { S.events.push(e); }
  while (S.events.length > 50) S.events.shift();
  showEvents();
}

function showEvents() {
  const ol = $('events');
  ol.innerHTML = '';
  const mine = S.events.filter((e) => !e.bot || e.bot === S.selected).slice(-30).reverse();
  for (const e of mine) {
    const li = document.createElement('li');
    const { type, ...rest } = e;
    delete rest.timestamp; delete rest.seq;
    li.textContent = `${type} ${JSON.stringify(rest)}`;
    ol.appendChild(li);
  }
}

function connect() {
  const es = new EventSource(withToken('/stream'));
  es.addEventListener('init', (m) => { S.connected = true; applyFrame(JSON.parse(m.data), true); });
  es.addEventListener('frame', (m) => applyFrame(JSON.parse(m.data), false));
  es.addEventListener('events', (m) => addEvents(JSON.parse(m.data)));
  es.onopen = () => { S.connected = true; $('conn').textContent = 'live'; $('conn').className = 'on'; };
  es.onerror = () => { S.connected = false; $('conn').textContent = 'reconnecting…'; $('conn').className = 'off'; };
}

// Sends one command line as an agent would; resolves to the parsed response.
async function command(line) {
  const headers = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch('/command', { method: 'POST', headers, body: line });
  const text = await r.text();
  try { return JSON.parse(text); } catch { return { error: text, code: `HTTP_${r.status}` }; }
}
S.command = command;

function withBot(obj) {
  if (S.selected && obj && typeof obj === 'object' && !Array.isArray(obj) && obj.bot === undefined && S.bots.length > 1) {
    return { ...obj, bot: S.selected };
  }
  return obj;
}

function pairs(dl, obj) {
  dl.innerHTML = '';
  if (!obj) { dl.textContent = '—'; return; }
  for (const [k, v] of Object.entries(obj)) {
    const dt = document.createElement('dt'); dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
    dl.append(dt, dd);
  }
}

// The selected bot's panel, from the stream: its status (with where it is and what it does,
// from its map entry), vitals and inventory.
function showPanel() {
  const bot = selectedBot();
  const p = bot ? S.panels[bot.name] : null;
  if (!p) { pairs($('status'), null); pairs($('vitals'), null); $('inventory').textContent = '—'; return; }
  const round = (v) => Math.round(v * 100) / 100;
  pairs($('status'), {
    state: p.status.state,
    pos: bot.pos ? bot.pos.map(round).join(', ') : null,
    dimension: bot.dimension,
    chunks: p.status.chunks,
    ...p.status.entities,
    actions: bot.actions && bot.actions.length ? bot.actions.join(', ') : 'none',
  });
  pairs($('vitals'), p.vitals);
  const ul = $('inventory');
  ul.innerHTML = '';
  if (!p.inventory) { ul.textContent = 'not synced yet'; return; }
  for (const it of p.inventory.items) {
    const li = document.createElement('li');
    const held = it.slot === p.inventory.heldSlot ? ' (held)' : '';
    li.textContent = `${it.name.replace('minecraft:', '')} ×${it.count} (slot ${it.slot})${held}`;
    ul.appendChild(li);
  }
  if (!ul.children.length) ul.textContent = 'empty';
}

$('pause').addEventListener('click', () => S.pause(!S.paused));
$('bots').addEventListener('change', (e) => { S.selected = e.target.value; draw(); showEvents(); showPanel(); });

$('cmd').addEventListener('submit', async (e) => {
  e.preventDefault();
  let line = $('line').value.trim();
  try { line = JSON.stringify(withBot(JSON.parse(line))); } catch { /* sent as typed: the bot answers the error */ }
  $('answer').textContent = '…';
  const r = await command(line);
  S.lastAnswer = r;
  $('answer').textContent = JSON.stringify(r, null, 1);
});

canvas.addEventListener('click', async (e) => {
  const rect = canvas.getBoundingClientRect();
  const w = S.toWorld((e.clientX - rect.left) * (canvas.width / rect.width), (e.clientY - rect.top) * (canvas.height / rect.height));
  const x = Math.floor(w.x), z = Math.floor(w.z);
  const bot = selectedBot();
  const dim = bot && bot.dimension != null ? bot.dimension : 0;
  const y = heightAt(dim, x, z);
  if (y === NO_TOP) { $('cell').textContent = `(${x}, ${z}): not loaded`; return; }
  const r = await command(JSON.stringify(withBot({ action: 'block', x, y, z })));
  const b = r.block || r;
  const states = b.states ? ' ' + JSON.stringify(b.states) : '';
  $('cell').textContent = r.error ? `(${x}, ${y}, ${z}): ${r.code} ${r.error}` : `(${x}, ${y}, ${z}) ${b.name}${states}`;
  S.lastCell = r;
});

canvas.addEventListener('wheel', (e) => {
  e.preventDefault();
  S.scale = Math.max(1, Math.min(32, S.scale * (e.deltaY < 0 ? 1.25 : 0.8)));
  draw();
}, { passive: false });

connect();
