/**
 * Webhooks answered before the body (issue 41), against the providers' real webhook servers on
 * 127.0.0.1 through raw sockets: a request announcing 15 MiB sends only its first bytes, and must
 * still get its answer (a wrong path 404, no secret 401, over the cap 413). `POST //` is a 404, not
 * a 500 and a logged error. The header timeout and the connection cap close slow and surplus
 * clients. Every wait is bounded; none asserts a speed.
 */
import { generateKeyPairSync } from 'node:crypto'
import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { WEBHOOK_SERVER_LIMITS, type WebhookServerLimits } from '../../src/providers/index.js'
import { EvolutionProvider } from '../../src/providers/evolution/index.js'
import { GoHighLevelProvider } from '../../src/providers/gohighlevel/index.js'
import { GupshupProvider } from '../../src/providers/gupshup/index.js'
import { TwilioProvider } from '../../src/providers/twilio/index.js'
import { useBots } from './harness.js'

const SECRET = 'gupshup-callback-secret-0123'
const FIFTEEN_MIB = 15 * 1024 * 1024
/** The longest a test waits for an answer the server should give at once (a bound, not a speed). */
const ANSWER_WAIT_MS = 20_000
const bots = useBots()
const sockets: Socket[] = []
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy()
})

async function gupshupServer(limits?: WebhookServerLimits): Promise<{ port: number; errors: unknown[] }> {
  const errors: unknown[] = []
  const provider = new GupshupProvider({
    apiKey: 'gupshup-api-key-0123456789',
    app: 'app',
    source: '15550001111',
    webhook: { port: 0, host: '127.0.0.1', secret: SECRET, ...(limits ? { limits } : {}) },
    onError: (error) => errors.push(error),
  })
  await bots.start({ provider, durability: { backend: new MemoryDurability() } }, () => undefined)
  return { port: Number(new URL(provider.webhookOrigin!).port), errors }
}

/** Opens a connection, writes `head` (and any body bytes), resolves what the server sent until it closed or `until` matched. */
function exchange(port: number, head: string, until = /\r\n\r\n/): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    sockets.push(socket)
    let text = ''
    const timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_WAIT_MS} ms; got ${JSON.stringify(text)}`)), ANSWER_WAIT_MS)
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1')
      if (until.test(text)) {
        clearTimeout(timer)
        resolve({ text, closed: false })
      }
    })
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ text, closed: true })
    })
    socket.write(head)
  })
}

const announcing = (path: string, headers: Record<string, string> = {}) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${FIFTEEN_MIB}\r\n` +
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('') +
  '\r\n{"app":"app","type":"message"'

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)

describe('webhook servers answer before the body when they can', () => {
  it('a wrong path is 404, no secret 401, over the cap 413, each before the announced 15 MiB body is sent', async () => {
    const { port } = await gupshupServer()
    expect(statusOf((await exchange(port, announcing('/elsewhere'))).text)).toBe(404)
    expect(statusOf((await exchange(port, announcing('/gupshup'))).text)).toBe(401)
    expect(statusOf((await exchange(port, announcing('/gupshup?token=gupshup-callback-secret-0124'))).text)).toBe(401)
    expect(statusOf((await exchange(port, announcing(`/gupshup?token=${SECRET}`))).text)).toBe(413)
    expect(statusOf((await exchange(port, announcing(`/gupshup?token=${SECRET}`).replace('POST', 'PUT'))).text)).toBe(405)
  })

  it('a signed channel refuses a request without its signature header before the body (Twilio, GoHighLevel)', async () => {
    const twilio = new TwilioProvider({
      accountSid: 'AC' + '0'.repeat(32),
      authToken: 'twilio-auth-token-0123456789',
      from: '+15550001111',
      webhook: { port: 0, host: '127.0.0.1', publicUrl: 'https://bot.example/twilio' },
      apiOrigin: 'http://127.0.0.1:9',
    })
    await bots.start({ provider: twilio, durability: { backend: new MemoryDurability() } }, () => undefined)
    expect(statusOf((await exchange(Number(new URL(twilio.webhookOrigin!).port), announcing('/twilio'))).text)).toBe(401)
    const publicKey = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string
    const ghl = new GoHighLevelProvider({ token: 'ghl-token', locationId: 'loc-1', webhook: { port: 0, host: '127.0.0.1', publicKey } })
    await bots.start({ provider: ghl, durability: { backend: new MemoryDurability() } }, () => undefined)
    expect(statusOf((await exchange(Number(new URL(ghl.webhookOrigin!).port), announcing('/gohighlevel'))).text)).toBe(401)
  })

  it('a header secret is checked before the body: a forged Evolution token is 401', async () => {
    const evolution = new EvolutionProvider({
      apiUrl: 'http://127.0.0.1:9',
      instance: 'bot',
      apiKey: 'evolution-api-key-0123456789',
      webhook: { port: 0, host: '127.0.0.1', jwtKey: 'evolution-jwt-key-0123456789' },
    })
    await bots.start({ provider: evolution, durability: { backend: new MemoryDurability() } }, () => undefined)
    const port = Number(new URL(evolution.webhookOrigin!).port)
    expect(statusOf((await exchange(port, announcing('/evolution'))).text)).toBe(401)
    expect(statusOf((await exchange(port, announcing('/evolution', { authorization: 'Bearer a.b.c' }))).text)).toBe(401)
  })

  it('POST // is a 404, not a 500 and a logged error', async () => {
    const { port, errors } = await gupshupServer()
    const answer = await exchange(port, 'POST // HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}')
    expect(statusOf(answer.text)).toBe(404)
    expect(errors).toEqual([])
  })

  it('a client that never finishes its headers is cut off by headersTimeoutMs', async () => {
    const { port } = await gupshupServer({ headersTimeoutMs: 1_000 })
    const answer = await exchange(port, `POST /gupshup?token=${SECRET} HTTP/1.1\r\nHost: 127.0.0.1\r\n`, /^HTTP\/1\.1 408/)
    expect(answer.closed || statusOf(answer.text) === 408).toBe(true)
  })

  it('a client that drips its body is cut off by requestTimeoutMs', async () => {
    const { port } = await gupshupServer({ requestTimeoutMs: 2_000 })
    const head = `POST /gupshup?token=${SECRET} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"app":`
    const answer = await exchange(port, head, /^HTTP\/1\.1 408/)
    expect(answer.closed || statusOf(answer.text) === 408).toBe(true)
  })

  it('connections over maxConnections are closed as they arrive; those within it are served', async () => {
    const { port } = await gupshupServer({ maxConnections: 2 })
    // A body that is not JSON: read, answered 400 by the handler, and the connection kept alive.
    const probe = `POST /gupshup?token=${SECRET} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 8\r\n\r\nnot json`
    // Two kept-alive connections, each answered (so the server holds both).
    for (let i = 0; i < 2; i++) expect(statusOf((await exchange(port, probe)).text)).toBe(400)
    const third = await exchange(port, probe)
    expect(third).toEqual({ text: '', closed: true })
  })

  it('the limits have named defaults: headers 10 s, a request 30 s, 256 connections', () => {
    expect(WEBHOOK_SERVER_LIMITS).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 256 })
  })
})
