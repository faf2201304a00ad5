/**
 * The shared provider of the webhook channels (`src/providers/shared/webhook-provider.ts`): `start`
 * serves the channel's route on the options' endpoint and hands it the sink, a failure is reported
 * to `onError` (or to stderr with the channel's secrets cut), `stop` ends the server (twice without
 * complaint), and the media references go through the channel's codec.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { InboundSink, MediaRef, ProviderSendResult, StoredMediaRef } from '../../src/core/provider/provider.js'
import type { MediaRefCodec } from '../../src/providers/shared/codec.js'
import type { OnErrorOption } from '../../src/providers/shared/error-reporter.js'
import type { WebhookEndpoint } from '../../src/providers/shared/http-server.js'
import { postTo } from '../../src/providers/shared/webhook-checks.js'
import { WebhookProvider } from '../../src/providers/shared/webhook-provider.js'
import type { WebhookRoute } from '../../src/providers/shared/webhook-server.js'

const SECRET = 'webhook-provider-secret-0123'

/** A codec that tags what it stores, so a test sees the provider went through it. */
const codec: MediaRefCodec = {
  channel: 'hooked',
  version: 1,
  serialize: (media): StoredMediaRef => ({ v: 1, data: { type: media.type } }),
  rehydrate: (_stored, media) => ({ ...media, token: 'rebuilt' }),
}

/** A channel whose route at /hook hands `{ text }` to the sink; the route is built asynchronously, as Twilio's is. */
class HookedProvider extends WebhookProvider {
  readonly name = 'hooked'
  readonly textLimit = 100
  routesBuilt = 0

  constructor(options: OnErrorOption & { webhook: WebhookEndpoint }) {
    super({ channel: 'hooked', options, secrets: [SECRET], codec })
  }

  async send(): Promise<ProviderSendResult> {
    return { messageId: 'sent' }
  }

  async download(): Promise<Buffer> {
    return Buffer.from('media')
  }

  protected async route(sink: InboundSink): Promise<WebhookRoute> {
    this.routesBuilt++
    return {
      head: (head) => postTo(head, '/hook'),
      handle: async (request) => {
        const { text } = JSON.parse(request.body.toString('utf8')) as { text: string }
        await sink({ id: text, chatId: 'c', text })
        return { status: 200 }
      },
    }
  }
}

const providers: HookedProvider[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  await Promise.all(providers.splice(0).map((provider) => provider.stop()))
})

function made(onError?: (error: unknown) => void): HookedProvider {
  const provider = new HookedProvider({ webhook: { port: 0, host: '127.0.0.1' }, ...(onError ? { onError } : {}) })
  providers.push(provider)
  return provider
}

const post = (origin: string, body: unknown) => fetch(`${origin}/hook`, { method: 'POST', body: JSON.stringify(body) })

describe('WebhookProvider', () => {
  it('serves the route on the endpoint, handing it the sink; a refused event is a 500 reported to onError', async () => {
    const errors: unknown[] = []
    const provider = made((error) => errors.push(error))
    expect(provider.session).toBe('any')
    expect(provider.webhookOrigin).toBeUndefined()
    const taken: string[] = []
    await provider.start(async (event) => {
      if (event.text === 'refuse') throw new Error(`the journal refused it (${SECRET})`)
      taken.push(event.text!)
    })
    const origin = provider.webhookOrigin!
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(provider.routesBuilt).toBe(1)
    expect((await post(origin, { text: 'hello' })).status).toBe(200)
    expect(taken).toEqual(['hello'])
    expect((await post(origin, { text: 'refuse' })).status).toBe(500)
    expect(errors.map((error) => (error as Error).message)).toEqual([`the journal refused it (${SECRET})`])
  })

  it('reports to stderr without onError, naming the channel with its secrets cut', async () => {
    const lines: string[] = []
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)))
    const provider = made()
    await provider.start(async () => {
      throw new Error(`the journal refused it (${SECRET})`)
    })
    expect((await post(provider.webhookOrigin!, { text: 'x' })).status).toBe(500)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^hooked: /)
    expect(lines[0]).toContain('the journal refused it')
    expect(lines[0]).not.toContain(SECRET)
  })

  it('stops the server, twice without complaint', async () => {
    const provider = made()
    await provider.start(async () => undefined)
    const origin = provider.webhookOrigin!
    await provider.stop()
    await provider.stop()
    expect(provider.webhookOrigin).toBeUndefined()
    await expect(post(origin, { text: 'late' })).rejects.toThrow()
  })

  it("journals media references through the channel's codec", () => {
    const provider = made()
    const media: MediaRef = { type: 'image', token: 'live' }
    const stored = provider.serializeMediaRef(media)
    expect(stored).toEqual({ v: 1, data: { type: 'image' } })
    expect(provider.rehydrateMediaRef(stored!, { type: 'image', token: undefined }).token).toBe('rebuilt')
  })
})
