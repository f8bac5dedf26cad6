// Drives a clawcraft process running several bots over MCP (Streamable HTTP) with the official
// TypeScript SDK's client and prints one JSON report line; tests/e2e/mcp.rs asserts on it.
//
//   node swarm.mjs <url> <token> <botA> <botB>
//
// Exit code 0 with {"report":…} on stdout, or 1 with {"fatal":…} when a step threw.

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'

const [url, token, botA, botB] = process.argv.slice(2)
const SPAWN_MS = 60000
const report = { errors: [] }

async function readJson (client, uri) {
  const r = await client.readResource({ uri })
  return JSON.parse(r.contents[0].text)
}

async function call (client, name, args) {
  try {
    const r = await client.callTool({ name, arguments: args })
    return { isError: r.isError ?? false, structured: r.structuredContent, meta: r._meta }
  } catch (e) {
    return { thrown: { code: e.code, message: e.message } }
  }
}

async function main () {
  const requestInit = { headers: { Authorization: `Bearer ${token}` } }
  const client = new Client({ name: 'clawcraft-e2e-swarm', version: '0.1.0' })
  client.onerror = e => report.errors.push(String(e && e.message ? e.message : e))
  // Events of botA's subscription, as delivered.
  const notified = []
  let wake = () => {}
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, n => {
    for (const e of (n.params._meta || {})['clawcraft/events'] || []) notified.push(e)
    wake()
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }))
  await client.subscribeResource({ uri: `clawcraft://events?since=0&bot=${botA}` })

  // Both bots spawned (from the bots resource, polled).
  const deadline = Date.now() + SPAWN_MS
  for (;;) {
    const bots = await readJson(client, 'clawcraft://bots')
    if (bots.spawned === 2) { report.bots = bots; break }
    if (Date.now() > deadline) throw new Error(`bots did not spawn: ${JSON.stringify(bots)}`)
    await new Promise(resolve => setTimeout(resolve, 200))
  }

  const tools = (await client.listTools()).tools
  const schemaOf = name => tools.find(t => t.name === name)?.inputSchema?.properties || {}
  report.posTakesBot = 'bot' in schemaOf('pos')
  report.schemaTakesBot = 'bot' in schemaOf('schema')
  report.resources = (await client.listResources()).resources.map(r => r.uri)
  report.templates = (await client.listResourceTemplates()).resourceTemplates.map(t => t.uriTemplate)

  report.posUnaddressed = await call(client, 'pos', {})
  report.posA = await call(client, 'pos', { bot: botA })
  report.posB = await call(client, 'pos', { bot: botB.toLowerCase() })
  report.posWrong = await call(client, 'pos', { bot: `${botA}x` })
  report.botNotString = await call(client, 'pos', { bot: 7 })
  report.chatB = await call(client, 'chat', { bot: botB, message: 'from B over mcp' })
  report.statusA = await readJson(client, `clawcraft://status?bot=${botA}`)
  report.vitalsB = await readJson(client, `clawcraft://vitals?bot=${botB}`)
  report.eventsA = (await readJson(client, `clawcraft://events?since=0&bot=${botA}`)).events
  report.eventsAll = (await readJson(client, 'clawcraft://events?since=0')).events

  // The subscription catches up with the read: its notifications carry the same events.
  const last = report.eventsA.at(-1)?.seq ?? 0
  const until = Date.now() + 10000
  while (!notified.some(e => e.seq >= last) && Date.now() < until) {
    await new Promise(resolve => { wake = resolve; setTimeout(resolve, 200) })
  }
  report.notified = notified
  await client.close()
}

main().then(
  () => { console.log(JSON.stringify({ report })); process.exit(0) },
  e => { console.log(JSON.stringify({ fatal: String(e && e.stack ? e.stack : e), report })); process.exit(1) }
)
