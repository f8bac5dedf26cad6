// Round-trip latency of MCP tool calls as a client sees it (the official TypeScript SDK's client,
// output validation included): N sequential `pos` calls after a warm-up.
//
//   node bench.mjs stdio <clawcraft-binary> [N]     launches `clawcraft mcp` (environment inherited)
//   node bench.mjs http <url> [N]                   a running bot's --mcp-http endpoint
//
// Prints {"transport":…,"calls":N,"p50_us":…,"p99_us":…,"mean_us":…}.

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const [mode, target, n = '1000'] = process.argv.slice(2)
const calls = Number(n)

const transport = mode === 'stdio'
  ? new StdioClientTransport({ command: target, args: ['mcp'], env: { ...process.env }, stderr: 'ignore' })
  : new StreamableHTTPClientTransport(new URL(target))
const client = new Client({ name: 'clawcraft-bench', version: '0.1.0' })
await client.connect(transport)
await client.listTools() // output validators compiled once, as a real client does

const deadline = Date.now() + 60000
for (;;) {
  const s = await client.callTool({ name: 'status', arguments: {} })
  if (s.structuredContent.spawned) break
  if (Date.now() > deadline) throw new Error('the bot did not spawn')
  await new Promise(resolve => setTimeout(resolve, 100))
}
for (let i = 0; i < 100; i++) await client.callTool({ name: 'pos', arguments: {} })

const us = []
for (let i = 0; i < calls; i++) {
  const t = process.hrtime.bigint()
  const r = await client.callTool({ name: 'pos', arguments: {} })
  us.push(Number(process.hrtime.bigint() - t) / 1000)
  if (r.isError) throw new Error(r.content[0].text)
}
us.sort((a, b) => a - b)
const at = q => Math.round(us[Math.min(us.length - 1, Math.floor(q * us.length))])
const mean = Math.round(us.reduce((a, b) => a + b, 0) / us.length)
process.stdout.write(JSON.stringify({ transport: mode, calls, p50_us: at(0.5), p99_us: at(0.99), mean_us: mean }) + '\n',
  () => client.close().then(() => process.exit(0)))
