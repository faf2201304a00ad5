/**
 * The one download policy (issue 41), through the providers' public `download` against real HTTP
 * servers on 127.0.0.1: an "internal" server stands for the bot's own network (a metadata service),
 * and must never be asked for anything. Live URLs a sender chose, redirects from an allowed origin,
 * names that resolve to loopback, too many redirects, a body over the cap and a server that stalls
 * are each refused with a `MediaUnavailableError` naming the refusal, never a raw AbortError.
 */
import { generateKeyPairSync } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { MediaUnavailableError } from '../../src/core/provider/provider-errors.js'
import { addressProblem } from '../../src/providers/index.js'
import { BaileysProvider } from '../../src/providers/baileys/index.js'
import { GoHighLevelProvider } from '../../src/providers/gohighlevel/index.js'
import { GupshupProvider } from '../../src/providers/gupshup/index.js'
import { MediaRefusedError } from '../../src/providers/shared/errors.js'
import { TwilioProvider } from '../../src/providers/twilio/index.js'
import { memoryAuthState } from './fixtures/fake-whatsapp-web.js'

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))))
})

/** A server on 127.0.0.1 answering with `handler`; `requests` lists the paths it was asked for. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ origin: string; requests: string[] }> {
  const requests: string[] = []
  const server = createServer((req, res) => {
    requests.push(req.url ?? '')
    handler(req, res)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  server.unref()
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

const internal = () => serve((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ami-id\ninstance-id\n'))

function gupshup(options: { mediaRefOrigins?: string[]; requestTimeoutMs?: number } = {}): GupshupProvider {
  return new GupshupProvider({
    apiKey: 'gupshup-api-key-0123456789',
    app: 'app',
    source: '15550001111',
    webhook: { port: 0, host: '127.0.0.1', secret: 'gupshup-callback-secret-0123' },
    ...options,
  })
}

async function refusal(download: Promise<Buffer>): Promise<MediaRefusedError> {
  const error = await download.then(
    () => new Error('downloaded'),
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(MediaUnavailableError)
  expect(error).toBeInstanceOf(MediaRefusedError)
  expect(error).toMatchObject({ code: 'MEDIA_UNAVAILABLE', reason: 'download-refused' })
  return error as MediaRefusedError
}

describe('the download policy: what a sender can make a provider fetch', () => {
  it('a live http:// URL to an internal server is refused before any request (Gupshup, GoHighLevel)', async () => {
    const metadata = await internal()
    const url = `${metadata.origin}/latest/meta-data/`
    expect((await refusal(gupshup().download({ type: 'image', token: { url } }))).refusal).toBe('url')
    const ghl = new GoHighLevelProvider({
      token: 'ghl-private-integration-token',
      locationId: 'loc-1',
      webhook: {
        port: 0,
        host: '127.0.0.1',
        publicKey: generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string,
      },
    })
    expect((await refusal(ghl.download({ type: 'image', token: { url } }))).refusal).toBe('url')
    expect(metadata.requests).toEqual([])
  })

  it('an https:// name that resolves to loopback, and a metadata IP literal, are refused at the address', async () => {
    const metadata = await internal()
    const port = new URL(metadata.origin).port
    const named = await refusal(gupshup().download({ type: 'image', token: { url: `https://localhost:${port}/latest/meta-data/` } }))
    expect(named.refusal).toBe('address')
    expect(named.message).toContain('127.0.0.1')
    const literal = await refusal(gupshup().download({ type: 'image', token: { url: 'https://169.254.169.254/latest/meta-data/' } }))
    expect(literal.refusal).toBe('address')
    expect(metadata.requests).toEqual([])
  })

  it('a redirect from the allowed origin to an internal server is refused (Twilio), and the credentials never leave the origin', async () => {
    const metadata = await internal()
    const seen: (string | undefined)[] = []
    const api = await serve((req, res) => {
      seen.push(req.headers.authorization)
      res.writeHead(302, { location: `${metadata.origin}/latest/meta-data/` }).end()
    })
    const twilio = new TwilioProvider({
      accountSid: 'AC' + '0'.repeat(32),
      authToken: 'twilio-auth-token-0123456789',
      from: '+15550001111',
      webhook: { port: 0, host: '127.0.0.1', publicUrl: 'https://bot.example/twilio' },
      apiOrigin: api.origin,
    })
    const url = `${api.origin}/2010-04-01/Accounts/AC${'0'.repeat(32)}/Messages/MM1/Media/ME1`
    expect((await refusal(twilio.download({ type: 'image', token: { url } }))).refusal).toBe('url')
    expect(seen).toHaveLength(1)
    expect(metadata.requests).toEqual([])
  })

  it('follows at most 3 redirects, each checked again', async () => {
    const media = await serve((req, res) => {
      const hop = Number(new URL(req.url!, 'http://x').searchParams.get('hop') ?? 0)
      if (req.url!.startsWith('/loop')) return void res.writeHead(302, { location: `/loop?hop=${hop + 1}` }).end()
      if (hop < 3) return void res.writeHead(301, { location: `/ok?hop=${hop + 1}` }).end()
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end('the photo')
    })
    const p = gupshup({ mediaRefOrigins: [media.origin] })
    expect(await p.download({ type: 'image', token: { url: `${media.origin}/ok` } })).toEqual(Buffer.from('the photo'))
    const before = media.requests.length
    expect((await refusal(p.download({ type: 'image', token: { url: `${media.origin}/loop` } }))).refusal).toBe('redirects')
    expect(media.requests.length - before).toBe(4)
  })

  it('a body announced over the cap is refused without reading it; a stalled server ends as a timeout refusal, not an AbortError', async () => {
    const media = await serve((req, res) => {
      if (req.url === '/huge') return void res.writeHead(200, { 'content-length': String(200 * 1024 * 1024) }).flushHeaders()
      res.writeHead(200, { 'content-type': 'image/jpeg' }).write('the first bytes, and then nothing')
    })
    const p = gupshup({ mediaRefOrigins: [media.origin], requestTimeoutMs: 300 })
    expect((await refusal(p.download({ type: 'image', token: { url: `${media.origin}/huge` } }))).refusal).toBe('size')
    const stalled = await refusal(p.download({ type: 'image', token: { url: `${media.origin}/stalls` } }))
    expect(stalled.refusal).toBe('timeout')
    expect(stalled.name).not.toBe('AbortError')
  })

  it('a content type of another kind than the channel declared is refused; the declared kind is read', async () => {
    const media = await serve((req, res) => {
      const type = req.url === '/page' ? 'text/html; charset=utf-8' : 'image/png'
      res.writeHead(200, { 'content-type': type }).end(req.url === '/page' ? '<html>sign in</html>' : 'the photo')
    })
    const p = gupshup({ mediaRefOrigins: [media.origin] })
    const declared = { type: 'image' as const, mimeType: 'image/jpeg' }
    expect(await p.download({ ...declared, token: { url: `${media.origin}/photo` } })).toEqual(Buffer.from('the photo'))
    expect((await refusal(p.download({ ...declared, token: { url: `${media.origin}/page` } }))).refusal).toBe('content-type')
  })

  it('a live WhatsApp Web message whose URL is not on the WhatsApp CDN is refused before Baileys connects anywhere', async () => {
    const metadata = await internal()
    const p = new BaileysProvider({ auth: memoryAuthState(), socket: () => undefined as never })
    const content = { mediaKey: Buffer.alloc(32, 1), fileSha256: Buffer.alloc(32), fileEncSha256: Buffer.alloc(32), mimetype: 'image/jpeg' }
    const key = { remoteJid: '15550001111@s.whatsapp.net', fromMe: false, id: 'ABCDEF' }
    const cases = [
      // The sender's own URL on an internal address: refused at the address, as an IP literal.
      { refusal: 'address', imageMessage: { ...content, url: `${metadata.origin}/latest/meta-data/`, directPath: '/latest/meta-data/' } },
      // A public-looking name off the CDN (it resolves to the metadata service): refused by the allowlist.
      { refusal: 'url', imageMessage: { ...content, url: 'https://169.254.169.254.nip.io/x', directPath: '/latest/meta-data/' } },
      // Without a direct path Baileys fetches the URL itself: plain http:// is refused.
      { refusal: 'url', imageMessage: { ...content, url: `${metadata.origin}/latest/meta-data/` } },
    ]
    for (const { refusal: expected, imageMessage } of cases) {
      expect((await refusal(p.download({ type: 'image', token: { key, message: { imageMessage } } }))).refusal).toBe(expected)
    }
    expect(metadata.requests).toEqual([])
  })

  it('the address check: loopback, private, link-local, metadata, shared, NAT64 and mapped forms refused; public addresses pass', () => {
    const refused = ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.100.100.200', '0.0.0.0', '168.63.129.16']
    const refused6 = ['::1', '::', 'fd00:ec2::254', 'fe80::1', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::a9fe:a9fe']
    for (const address of [...refused, ...refused6]) expect(addressProblem(address), address).toBeDefined()
    for (const address of ['93.184.216.34', '157.240.1.35', '2a03:2880:f10c:83:face:b00c:0:25de'])
      expect(addressProblem(address), address).toBeUndefined()
  })
})
