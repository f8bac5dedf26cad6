// Drives the clawcraft MCP server with the official TypeScript SDK's client and prints one JSON
// report line of everything it saw; the Rust end-to-end test (tests/e2e/mcp.rs) asserts on it.
//
//   node client.mjs stdio <clawcraft-binary>     launches `clawcraft mcp` (environment inherited)
//   node client.mjs http <url> [token]           connects to a running bot's --mcp-http endpoint
//
// Exit code 0 with {"report":…} on stdout, or 1 with {"fatal":…} when a step threw.

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'

const [mode, target, token] = process.argv.slice(2)
const SPAWN_MS = 60000
const EVENT_MS = 20000
const report = { mode, errors: [] }

// Every event the subscription delivered, by seq; and the notifications themselves.
const events = new Map()
const notes = []
const typedNotes = []
let waiters = []
function remember (list) {
  for (const e of list || []) events.set(e.seq, e)
  waiters = waiters.filter(w => !w())
}

function waitEvent (what, pred, ms = EVENT_MS) {
  return new Promise((resolve, reject) => {
    const check = () => {
      for (const e of events.values()) {
        if (pred(e)) { clearTimeout(timer); resolve(e); return true }
      }
      return false
    }
    const timer = setTimeout(() => {
      waiters = waiters.filter(w => w !== check)
      reject(new Error(`timed out waiting for ${what} (seen: ${[...events.values()].map(e => e.type).join(",")})`))
    }, ms)
    if (!check()) waiters.push(check)
  })
}

async function readJson (client, uri) {
  const r = await client.readResource({ uri })
  return { uri: r.contents[0].uri, mimeType: r.contents[0].mimeType, value: JSON.parse(r.contents[0].text) }
}

async function call (client, name, args, options) {
  try {
    const r = await client.callTool({ name, arguments: args }, undefined, options)
    // Image content (render, map_image): its PNG header as decoded here, not the data.
    const images = r.content.filter(c => c.type === 'image').map(c => {
      const png = Buffer.from(c.data, 'base64')
      return {
        mimeType: c.mimeType,
        signature: png.subarray(0, 8).toString('hex'),
        width: png.readUInt32BE(16),
        height: png.readUInt32BE(20),
        sameAsStructured: c.data === (r.structuredContent || {}).png_base64
      }
    })
    const text = r.content.filter(c => c.type === 'text').map(c => c.text)
    return { isError: r.isError ?? false, structured: r.structuredContent, text, images, meta: r._meta }
  } catch (e) {
    return { thrown: { code: e.code, message: e.message, data: e.data } }
  }
}

async function main () {
  let transport
  if (mode === 'stdio') {
    transport = new StdioClientTransport({ command: target, args: ['mcp'], env: { ...process.env }, stderr: 'inherit' })
  } else if (mode === 'http') {
    if (token) {
      // Without the bearer token the endpoint refuses, before any MCP handling.
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
      })
      report.unauthorized = { status: res.status, body: await res.json() }
    }
    const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined
    transport = new StreamableHTTPClientTransport(new URL(target), { requestInit })
  } else {
    throw new Error(`unknown mode ${mode}`)
  }

  const client = new Client({ name: 'clawcraft-e2e', version: '0.1.0' })
  client.onerror = e => report.errors.push(String(e && e.message ? e.message : e))
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, n => {
    const meta = n.params._meta || {}
    const list = meta['clawcraft/events'] || []
    // The type-filtered subscription's notifications are kept apart (they repeat some events).
    if (n.params.uri.includes('types=')) {
      typedNotes.push({ uri: n.params.uri, types: list.map(e => e.type), lastSeq: meta['clawcraft/lastSeq'] })
      return
    }
    notes.push({ uri: n.params.uri, count: list.length, lastSeq: meta['clawcraft/lastSeq'] })
    remember(list)
  })

  await client.connect(transport)
  report.server = client.getServerVersion()
  report.capabilities = client.getServerCapabilities()
  report.instructions = client.getInstructions()
  // stdio: the client starts the bot, so live events suffice; HTTP: the bot ran before this
  // client came, so the subscription starts from seq 0 (a replay, then live events).
  const subscription = mode === 'stdio' ? 'clawcraft://events' : 'clawcraft://events?since=0'
  report.subscription = subscription
  await client.subscribeResource({ uri: subscription })
  // A second subscription, to chat only (over HTTP from seq 0 too: on a slow machine this client
  // may connect after Alice spoke); and one to a misspelt type, refused with a hint.
  const typed = mode === 'stdio' ? 'clawcraft://events?types=msg' : 'clawcraft://events?since=0&types=msg'
  report.typedSubscription = typed
  await client.subscribeResource({ uri: typed })
  try {
    await client.subscribeResource({ uri: 'clawcraft://events?types=msgs' })
    report.badTypedSubscription = { accepted: true }
  } catch (e) {
    report.badTypedSubscription = { code: e.code, message: e.message }
  }

  report.tools = (await client.listTools()).tools
  report.resources = (await client.listResources()).resources
  report.templates = (await client.listResourceTemplates()).resourceTemplates

  report.spawn = await waitEvent('spawn', e => e.type === 'spawn', SPAWN_MS)
  const early = await readJson(client, 'clawcraft://events?since=0')
  report.firstRead = { types: early.value.events.map(e => e.type), seqs: early.value.events.map(e => e.seq) }

  report.schema = await call(client, 'schema', {})
  report.pos = await call(client, 'pos', { id: 'mcp-pos' })
  report.scan = await call(client, 'scan', { radius: 1, radiusY: 1 })
  // Pictures come as image content besides the text; the base64 is left out of the text.
  for (const [key, name, args] of [['render', 'render', { width: 32, height: 24 }], ['mapImage', 'map_image', { radius: 4 }]]) {
    const r = await call(client, name, args)
    if (r.structured) r.structured = { width: r.structured.width, height: r.structured.height, legend: r.structured.legend, pngChars: (r.structured.png_base64 || '').length }
    report[key] = r
  }
  report.chat = await call(client, 'chat', { message: `hello over mcp ${mode}` })
  report.badParams = await call(client, 'chat', {})
  report.outOfRange = await call(client, 'scan', { radius: 1000 })
  report.unknownTool = await call(client, 'frobnicate', {})

  report.status = await readJson(client, 'clawcraft://status')
  report.vitals = await readJson(client, 'clawcraft://vitals')
  report.recent = await readJson(client, 'clawcraft://events?limit=3')
  try {
    await client.readResource({ uri: 'clawcraft://events?since=banana' })
    report.badEventsUri = { accepted: true }
  } catch (e) {
    report.badEventsUri = { code: e.code, message: e.message }
  }

  // Chat from a player of the peer's living world reaches this client as a notification.
  report.aliceChat = await waitEvent('Alice\'s chat', e => e.type === 'msg' && e.from === 'Alice' && e.msg === 'hi everyone')

  // The living script kills the bot at 9.5 s (the test runs it with CLAWCRAFT_RESPAWN, so it comes
  // back at 10.1 s); walking after that keeps the moves clear of the death on a slow machine (a
  // death ends a move `failed`, "died").
  await waitEvent('respawn', e => e.type === 'respawn')
  // An async action with a progress token: the call waits for walk_done, reporting progress.
  const at = (await call(client, 'pos', {})).structured.pos
  const progress = []
  report.moveWaited = await call(client, 'move', { x: at.x + 2, y: at.y, z: at.z, id: `mcp-walk-${mode}-1` }, {
    onprogress: p => progress.push(p),
    timeout: 30000
  })
  report.moveWaited.progress = progress
  // Without one it answers at once; walk_done arrives as a notification.
  report.moveAsync = await call(client, 'move', { x: at.x, y: at.y, z: at.z, id: `mcp-walk-${mode}-2` })
  report.moveAsync.done = await waitEvent('walk_done', e => e.type === 'walk_done' && e.id === `mcp-walk-${mode}-2`)

  report.prompts = (await client.listPrompts()).prompts
  report.prompt = await client.getPrompt({ name: 'play', arguments: { goal: 'find the cow' } })

  // Resuming from a seq gives exactly the later events.
  const cut = report.spawn.seq
  const after = await readJson(client, `clawcraft://events?since=${cut}&limit=5`)
  report.since = { cut, seqs: after.value.events.map(e => e.seq), lastSeq: after.value.lastSeq, more: after.value.more }

  await client.unsubscribeResource({ uri: subscription })
  await client.unsubscribeResource({ uri: typed })
  report.notifications = notes
  report.typedNotifications = typedNotes
  report.notifiedSeqs = [...events.keys()]
  await client.close()
}

// Exit once the report is flushed (stdout is a pipe: writes complete asynchronously).
function finish (line, code) { process.stdout.write(line + '\n', () => process.exit(code)) }

main().then(
  () => finish(JSON.stringify({ report }), 0),
  e => {
    report.notifications = notes
    finish(JSON.stringify({ fatal: String(e && e.stack ? e.stack : e), report }), 1)
  }
)
