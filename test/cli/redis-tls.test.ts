/**
 * Redis over TLS, against a private redis-server started here on a TLS-only port (`--port 0
 * --tls-port`) that asks every client for a certificate, with certificates made here. Its
 * certificate is for 127.0.0.1 and localhost; it also listens on 127.0.0.2, a name the certificate
 * does not carry. Covered: `rediss://` with `caFile`, `certFile`, `keyFile` in the URL (the library
 * and the CLI) and in the `tls` option, `servername`, the refusals (an untrusted CA, another name,
 * no client certificate, bad settings), and the ACL user docs/security.md gives, which runs the
 * conformance suite, a bot and the CLI and nothing more.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisDurability, RedisStore } from '../../src/backends/redis/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import { ConfigError, TlsCertificateError } from '../../src/core/errors/errors.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { inboxRecord } from '../../src/testing/conformance/fixtures.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { randomPrefix, redisBinariesAvailable, startRedisServer, type RedisServer } from '../../test-utils/redis.js'
import { makeCertificates, opensslAvailable, type TestCertificates } from '../../test-utils/tls-certificates.js'
import { botmesh, jsonOf, ROOT } from './helpers.js'

const run = promisify(execFile)
const available = (await opensslAvailable('Redis over TLS')) && (await redisBinariesAvailable('Redis over TLS'))
const TIMEOUTS = { connectTimeoutMs: 5_000, commandTimeoutMs: 5_000 }

describe.runIf(available)('Redis over TLS (a private redis-server, TLS only, client certificates required)', () => {
  let certificates: TestCertificates
  let server: RedisServer
  /** `rediss://[auth@]host:port?caFile…&certFile…&keyFile…` plus `extra`. */
  const url = (options: { host?: string; auth?: string; ca?: string; extra?: string } = {}) => {
    const { caFile, clientCertFile, clientKeyFile } = certificates
    const auth = options.auth ? `${options.auth}@` : ''
    return `rediss://${auth}${options.host ?? '127.0.0.1'}:${server.port}?caFile=${options.ca ?? caFile}&certFile=${clientCertFile}&keyFile=${clientKeyFile}${options.extra ?? ''}`
  }

  beforeAll(async () => {
    certificates = await makeCertificates()
    const { caFile, serverCertFile, serverKeyFile, clientCertFile, clientKeyFile } = certificates
    server = await startRedisServer({
      flags: ['--bind', '127.0.0.1', '127.0.0.2'],
      tls: { caFile, certFile: serverCertFile, keyFile: serverKeyFile, clientCertFile, clientKeyFile },
    })
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    certificates?.remove()
  })

  it('journals and answers a bot over rediss:// with the CA and a client certificate in the URL', async () => {
    const store = new RedisStore({ url: url(), prefix: randomPrefix(), ...TIMEOUTS })
    const provider = new MockProvider()
    const bot = new Bot({ provider, store, durability: { backend: store.durability(), instanceId: 'tls-1', pollMs: 50 } })
    bot.when(TEXT, (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
    await bot.start()
    try {
      await provider.receive({ id: 'm1', chatId: 'c1', text: 'over TLS' })
      await bot.idle()
      expect(provider.sent.map((sent) => sent.content)).toEqual(['echo: over TLS'])
    } finally {
      await bot.stop()
    }
  })

  it('takes the same settings as the tls option (PEM text or files) and checks the name servername gives', async () => {
    const { caFile, clientCertFile, clientKeyFile } = certificates
    const backend = new RedisDurability({
      url: `rediss://127.0.0.2:${server.port}`,
      tls: { ca: readFileSync(caFile), certFile: clientCertFile, keyFile: clientKeyFile, servername: 'localhost' },
      prefix: randomPrefix(),
      ...TIMEOUTS,
    })
    await backend.start()
    try {
      await backend.journal('bot-a').write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }])
      expect((await backend.journal('bot-a').read('inbox', ['m1']))[0]?.record.id).toBe('m1')
    } finally {
      await backend.stop()
    }
  })

  it('refuses a server whose certificate another CA signed, or that is made out to another name (not retryable)', async () => {
    const untrusted = new RedisDurability({ url: url({ ca: certificates.otherCaFile }), ...TIMEOUTS })
    const refusal = await untrusted.start().catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(TlsCertificateError)
    expect(refusal).toMatchObject({ code: 'TLS_CERTIFICATE_REFUSED', retryable: false, reason: 'SELF_SIGNED_CERT_IN_CHAIN' })
    expect((refusal as Error).message).toContain(`Redis at 127.0.0.1:${server.port}`)
    expect((refusal as Error).message).toContain('caFile')
    await untrusted.stop()

    const otherName = new RedisDurability({ url: url({ host: '127.0.0.2' }), ...TIMEOUTS })
    await expect(otherName.start()).rejects.toMatchObject({ code: 'TLS_CERTIFICATE_REFUSED', reason: 'ERR_TLS_CERT_ALTNAME_INVALID' })
    await otherName.stop()

    // Node's own CAs do not know the test CA either.
    const noCa = new RedisDurability({ url: `rediss://127.0.0.1:${server.port}`, ...TIMEOUTS })
    await expect(noCa.start()).rejects.toBeInstanceOf(TlsCertificateError)
    await noCa.stop()
  })

  it('cannot connect without the client certificate the server asks for', async () => {
    const backend = new RedisDurability({ url: `rediss://127.0.0.1:${server.port}?caFile=${certificates.caFile}`, ...TIMEOUTS })
    await expect(backend.start()).rejects.toMatchObject({ code: 'JOURNAL_UNAVAILABLE' })
    await backend.stop()
  })

  it('refuses settings that cannot work with CONFIG_INVALID, naming them', async () => {
    const { caFile } = certificates
    const make = (options: object) => () => new RedisDurability(options as never)
    expect(make({ url: `redis://127.0.0.1:${server.port}?caFile=${caFile}` })).toThrow(/need a rediss:\/\/ URL/)
    expect(make({ url: `rediss://127.0.0.1:${server.port}`, tls: { certFile: caFile } })).toThrow(/needs its key/)
    expect(make({ url: `rediss://127.0.0.1:${server.port}?caFile=${caFile}`, tls: { caFile } })).toThrow(/not both/)
    expect(make({ client: new Redis({ lazyConnect: true }), tls: { caFile } })).toThrow(/set TLS on the client/)
    expect(make({ url: `rediss://127.0.0.1:${server.port}`, tls: { caFile, rejectUnauthorized: false } })).toThrow(ConfigError)
    const missing = new RedisDurability({ url: `rediss://127.0.0.1:${server.port}?caFile=/nonexistent/ca.pem`, ...TIMEOUTS })
    await expect(missing.start()).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('/nonexistent/ca.pem (ENOENT)'),
    })
  })

  it('the ACL user of docs/security.md runs the conformance suite, a bot and the CLI, and nothing more', async () => {
    const rules = aclRules()
    const { caFile, clientCertFile, clientKeyFile } = certificates
    await run('redis-cli', [
      '-h',
      '127.0.0.1',
      '-p',
      String(server.port),
      '--tls',
      '--cacert',
      caFile,
      '--cert',
      clientCertFile,
      '--key',
      clientKeyFile,
      'ACL',
      'SETUSER',
      'botmesh',
      'on',
      '>s3cret-pw',
      ...rules,
    ])
    const auth = 'botmesh:s3cret-pw'

    const suite = await botmesh(['conformance', '--json', '--backend', url({ auth, extra: '&prefix=botmesh' })], { timeoutMs: 240_000 })
    expect(suite.code, suite.stderr).toBe(0)
    expect(jsonOf<{ failed: number; passed: number }>(suite)).toMatchObject({ failed: 0, passed: expect.any(Number) })

    const store = new RedisStore({ url: url({ auth }), prefix: 'botmesh-acl', ...TIMEOUTS })
    const provider = new MockProvider()
    const bot = new Bot({ provider, store, durability: { backend: store.durability(), instanceId: 'acl-1', pollMs: 50 } })
    bot.when(TEXT, async (ctx) => {
      await ctx.user.set('seen', true)
      await ctx.reply(`echo: ${ctx.message.text}`)
    })
    await bot.start()
    try {
      await provider.receive({ id: 'm1', chatId: 'c1', text: 'as the ACL user' })
      await bot.idle()
      expect(provider.sent.map((sent) => sent.content)).toEqual(['echo: as the ACL user'])
      expect(await store.listLog(bot.scope, 'c1', 10)).toHaveLength(2)
    } finally {
      await bot.stop()
    }
    for (const command of [['scopes'], ['stats'], ['dlq', 'list'], ['export']]) {
      const result = await botmesh([...command, '--backend', url({ auth, extra: '&prefix=botmesh-acl' })])
      expect(result.code, `${command.join(' ')}: ${result.stderr}`).toBe(0)
    }

    // Outside its prefix, or beyond its commands, the user is refused.
    const client = new Redis(url({ auth }).replace(/\?.*$/, ''), {
      tls: { ca: readFileSync(caFile), cert: readFileSync(clientCertFile), key: readFileSync(clientKeyFile) },
      lazyConnect: true,
    })
    await client.connect()
    try {
      await expect(client.set('other:key', '1')).rejects.toThrow(/NOPERM/)
      await expect(client.flushall()).rejects.toThrow(/NOPERM/)
      await expect(client.keys('*')).rejects.toThrow(/NOPERM/)
    } finally {
      client.disconnect()
    }
  })
})

/** The rules of the `ACL SETUSER botmesh on >… <rules>` line docs/security.md gives. */
function aclRules(): string[] {
  const docs = readFileSync(join(ROOT, 'docs', 'security.md'), 'utf8')
  const line = /^ACL SETUSER botmesh on >\S+ (.+)$/m.exec(docs)?.[1]
  if (!line) throw new Error('docs/security.md gives no "ACL SETUSER botmesh on >… " line')
  return line.trim().split(/\s+/)
}
