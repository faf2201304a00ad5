/**
 * The webhook part every webhook channel composes (`src/providers/shared/webhook-server.ts`): a
 * route's head answers before the body, a body that is not JSON is a 400 and no reported failure,
 * anything else a route throws is a 500 that is reported, the route's body cap holds, and `stop`
 * can be called twice. Then the same 400 through three channels' real servers, with their secrets
 * right, so a channel that stops composing the part is caught.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { jsonOf, postTo } from '../../src/providers/shared/webhook-checks.js'
import { WebhookServer, type WebhookRoute } from '../../src/providers/shared/webhook-server.js'
import type { IProvider } from '../../src/core/provider/provider.js'
import { GupshupProvider } from '../../src/providers/gupshup/index.js'
import { TelegramProvider } from '../../src/providers/telegram/index.js'
import { WppconnectProvider } from '../../src/providers/wppconnect/index.js'

const SECRET = 'webhook-server-secret-0123'
const servers: { stop(): Promise<void> }[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()))
})

/** A route at /hook that takes `{ "fail": true }` as a journal that refused it. */
const route: WebhookRoute = {
  bodyBytesMax: 64,
  head: (head) => postTo(head, '/hook') ?? (head.headers['x-secret'] === SECRET ? undefined : { status: 401 }),
  handle: async (request) => {
    const body = jsonOf<{ fail?: boolean }>(request.body)
    if (body.fail) throw new Error('the journal refused it')
    return { status: 200, body: 'taken' }
  },
}

async function started(): Promise<{ server: WebhookServer; errors: unknown[] }> {
  const errors: unknown[] = []
  const server = new WebhookServer((error) => errors.push(error))
  servers.push(server)
  await server.start({ port: 0, host: '127.0.0.1' }, route)
  return { server, errors }
}

async function post(origin: string, body: string, headers: Record<string, string> = { 'x-secret': SECRET }, path = '/hook') {
  const res = await fetch(`${origin}${path}`, { method: 'POST', headers, body })
  return { status: res.status, text: await res.text() }
}

describe('WebhookServer', () => {
  it('answers from the head before the body, a body that is not JSON with 400 (nothing reported), a failure with 500 (reported)', async () => {
    const { server, errors } = await started()
    const origin = server.origin!
    expect(await post(origin, '{}', { 'x-secret': 'wrong' })).toEqual({ status: 401, text: '' })
    expect(await post(origin, '{}', { 'x-secret': SECRET }, '/other')).toEqual({ status: 404, text: '' })
    expect(await post(origin, 'not json')).toEqual({ status: 400, text: 'the body is not JSON' })
    expect(errors).toEqual([])
    expect(await post(origin, '{"fail":true}')).toEqual({ status: 500, text: '' })
    expect(errors.map((error) => (error as Error).message)).toEqual(['the journal refused it'])
    expect(await post(origin, JSON.stringify({ pad: 'x'.repeat(100) }))).toMatchObject({ status: 413 })
    expect(await post(origin, '{}')).toEqual({ status: 200, text: 'taken' })
  })

  it('has an origin only while it runs, and stops twice without complaint', async () => {
    const server = new WebhookServer(() => undefined)
    expect(server.origin).toBeUndefined()
    await server.start({ port: 0, host: '127.0.0.1' }, route)
    const origin = server.origin!
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    await server.stop()
    await server.stop()
    expect(server.origin).toBeUndefined()
    await expect(fetch(`${origin}/hook`, { method: 'POST', body: '{}' })).rejects.toThrow()
  })
})

describe('channels composing it answer a body that is not JSON with 400, and report nothing', () => {
  const channels: {
    name: string
    make(onError: (error: unknown) => void): IProvider & { webhookOrigin: string | undefined }
    request: RequestInit & { path: string }
  }[] = [
    {
      name: 'gupshup',
      make: (onError) =>
        new GupshupProvider({
          apiKey: 'gupshup-api-key-0123456789',
          app: 'app',
          source: '15550001111',
          webhook: { port: 0, host: '127.0.0.1', secret: SECRET },
          onError,
        }),
      request: { path: `/gupshup?token=${SECRET}` },
    },
    {
      name: 'wppconnect',
      make: (onError) =>
        new WppconnectProvider({
          serverUrl: 'http://127.0.0.1:9',
          session: 's',
          token: 'wpp-token-0123456789',
          webhook: { port: 0, host: '127.0.0.1', secret: SECRET },
          onError,
        }),
      request: { path: `/wppconnect?token=${SECRET}` },
    },
    {
      name: 'telegram',
      make: (onError) =>
        new TelegramProvider({
          token: '1:abc',
          apiRoot: 'http://127.0.0.1:9',
          webhook: { port: 0, host: '127.0.0.1', secretToken: SECRET },
          onError,
        }),
      request: { path: '/telegram', headers: { 'x-telegram-bot-api-secret-token': SECRET } },
    },
  ]
  for (const channel of channels) {
    it(channel.name, async () => {
      const errors: unknown[] = []
      const provider = channel.make((error) => errors.push(error))
      servers.push(provider)
      await provider.start(async () => undefined)
      const { path, ...init } = channel.request
      const res = await fetch(`${provider.webhookOrigin}${path}`, { ...init, method: 'POST', body: '{not json' })
      expect({ status: res.status, text: await res.text() }).toEqual({ status: 400, text: 'the body is not JSON' })
      expect(errors).toEqual([])
    })
  }
})
