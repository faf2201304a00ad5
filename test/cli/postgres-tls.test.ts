/**
 * PostgreSQL over TLS, against a private server started here with SSL on and certificates made
 * here: pg_hba.conf refuses every connection in clear text, and the user `certuser` must show a
 * client certificate. The server's certificate is for 127.0.0.1 only; it also listens on
 * 127.0.0.2, a name the certificate does not carry. Covered: sslmode=verify-full with sslrootcert
 * (the library and the CLI), require (encrypted, unchecked), verify-ca (chain only), a client
 * certificate, the `tls` option, and the refusals: an untrusted CA, another name, a bad setting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { PostgresDurability, PostgresStore } from '../../src/backends/postgres/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import { ConfigError, TlsCertificateError } from '../../src/core/errors/errors.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { inboxRecord } from '../../src/testing/conformance/fixtures.js'
import { opensslAvailable, makeCertificates, type TestCertificates } from '../../test-utils/tls-certificates.js'
import { postgresBinariesAvailable, startPostgresServer, type PostgresServer } from '../../test-utils/postgres-server.js'
import { botmesh as runCli } from './helpers.js'

const available = (await opensslAvailable('PostgreSQL over TLS')) && postgresBinariesAvailable('PostgreSQL over TLS')

describe.runIf(available)('PostgreSQL over TLS (a private server with SSL on)', () => {
  let certificates: TestCertificates
  let server: PostgresServer
  const url = (host: string, query: string, user = 'postgres') =>
    `postgres://${user}@${host}:${server.port}/postgres?${query}&application_name=tls_test`

  beforeAll(async () => {
    certificates = await makeCertificates({ serverNames: ['IP:127.0.0.1'], clientName: 'certuser' })
    server = await startPostgresServer({
      settings: {
        listen_addresses: '127.0.0.1,127.0.0.2',
        ssl: 'on',
        ssl_cert_file: 'server.crt',
        ssl_key_file: 'server.key',
        ssl_ca_file: 'ca.crt',
      },
      files: { 'server.crt': certificates.serverCertFile, 'server.key': certificates.serverKeyFile, 'ca.crt': certificates.caFile },
      hba: [
        'local all all trust',
        'hostssl all certuser 127.0.0.0/8 cert',
        'hostssl all all 127.0.0.0/8 trust',
        'hostnossl all all 0.0.0.0/0 reject',
      ],
    })
    const admin = new pg.Client({ host: server.dir, port: server.port, user: 'postgres', database: 'postgres' })
    await admin.connect()
    await admin.query('CREATE USER certuser SUPERUSER')
    await admin.end()
  }, 180_000)

  afterAll(async () => {
    await server?.stop()
    certificates?.remove()
  })

  /** Whether the backend's own connection is encrypted, as the server sees it. */
  async function encrypted(backend: PostgresDurability): Promise<boolean> {
    const { rows } = await backend.kv.connection.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')
    return rows[0]!.ssl
  }

  it('journals and answers a bot over sslmode=verify-full with sslrootcert, encrypted as the server sees it', async () => {
    const store = new PostgresStore({ connectionString: url('127.0.0.1', `sslmode=verify-full&sslrootcert=${certificates.caFile}`) })
    const provider = new MockProvider()
    const bot = new Bot({ provider, store, durability: { backend: store.durability(), instanceId: 'tls-1', pollMs: 50 } })
    bot.when(TEXT, (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
    await bot.start()
    try {
      await provider.receive({ id: 'm1', chatId: 'c1', text: 'over TLS' })
      await bot.idle()
      expect(provider.sent.map((sent) => sent.content)).toEqual(['echo: over TLS'])
      expect(await encrypted(store.durability())).toBe(true)
    } finally {
      await bot.stop()
    }
  })

  it('encrypts with sslmode=require without checking the certificate, as psql does', async () => {
    const backend = new PostgresDurability({ connectionString: url('127.0.0.2', 'sslmode=require'), tablePrefix: 'req_' })
    await backend.start()
    try {
      expect(await encrypted(backend)).toBe(true)
    } finally {
      await backend.stop()
    }
  })

  it('checks the chain but not the name with sslmode=verify-ca', async () => {
    const backend = new PostgresDurability({
      connectionString: url('127.0.0.2', `sslmode=verify-ca&sslrootcert=${certificates.caFile}`),
      tablePrefix: 'ca_',
    })
    await backend.start()
    await backend.stop()
    const untrusted = new PostgresDurability({
      connectionString: url('127.0.0.2', `sslmode=verify-ca&sslrootcert=${certificates.otherCaFile}`),
      tablePrefix: 'ca_',
    })
    await expect(untrusted.start()).rejects.toMatchObject({ code: 'TLS_CERTIFICATE_REFUSED', reason: 'SELF_SIGNED_CERT_IN_CHAIN' })
  })

  it('refuses a server whose certificate another CA signed, or that is made out to another name', async () => {
    const untrusted = new PostgresDurability({
      connectionString: url('127.0.0.1', `sslmode=verify-full&sslrootcert=${certificates.otherCaFile}`),
    })
    const refusal = await untrusted.start().catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(TlsCertificateError)
    expect(refusal).toMatchObject({ code: 'TLS_CERTIFICATE_REFUSED', retryable: false, reason: 'SELF_SIGNED_CERT_IN_CHAIN' })
    expect((refusal as Error).message).toContain(`PostgreSQL at 127.0.0.1:${server.port}/postgres`)
    expect((refusal as Error).message).toContain('sslrootcert')

    const otherName = new PostgresDurability({
      connectionString: url('127.0.0.2', `sslmode=verify-full&sslrootcert=${certificates.caFile}`),
    })
    await expect(otherName.start()).rejects.toMatchObject({ code: 'TLS_CERTIFICATE_REFUSED', reason: 'ERR_TLS_CERT_ALTNAME_INVALID' })

    // The tls option checks as verify-full: the name it is told to expect must be on the certificate.
    const named = new PostgresDurability({
      connectionString: url('127.0.0.1', 'application_name=x'),
      tls: { caFile: certificates.caFile, servername: 'db.example' },
    })
    await expect(named.start()).rejects.toMatchObject({ code: 'TLS_CERTIFICATE_REFUSED', reason: 'ERR_TLS_CERT_ALTNAME_INVALID' })
  })

  it('shows a client certificate to a server that asks for one (sslcert, sslkey; or tls.certFile, tls.keyFile)', async () => {
    const { caFile, clientCertFile, clientKeyFile } = certificates
    const withCert = new PostgresDurability({
      connectionString: url(
        '127.0.0.1',
        `sslmode=verify-full&sslrootcert=${caFile}&sslcert=${clientCertFile}&sslkey=${clientKeyFile}`,
        'certuser',
      ),
      tablePrefix: 'cert_',
    })
    await withCert.start()
    expect(await encrypted(withCert)).toBe(true)
    await withCert.stop()
    const viaOption = new PostgresDurability({
      connectionString: url('127.0.0.1', 'application_name=x', 'certuser'),
      tls: { ca: await import('node:fs').then((fs) => fs.readFileSync(caFile)), certFile: clientCertFile, keyFile: clientKeyFile },
      tablePrefix: 'cert_',
    })
    await viaOption.start()
    await viaOption.stop()
    const without = new PostgresDurability({ connectionString: url('127.0.0.1', `sslmode=verify-full&sslrootcert=${caFile}`, 'certuser') })
    await expect(without.start()).rejects.toThrow(/certificate/i)
  })

  it('refuses settings that cannot work with CONFIG_INVALID, naming them', async () => {
    const config =
      (connectionString: string, extra: object = {}) =>
      () =>
        new PostgresDurability({ connectionString, ...extra })
    expect(config(url('127.0.0.1', 'sslmode=prefer'))).toThrow(/sslmode=prefer is not supported \(botmesh does not fall back to clear text/)
    expect(config(url('127.0.0.1', 'sslmode=verify-ca'))).toThrow(/verify-ca needs sslrootcert/)
    expect(config(url('127.0.0.1', 'sslmode=verify-full&sslcert=/x.crt'))).toThrow(/needs its key/)
    expect(config(url('127.0.0.1', 'sslmode=require'), { tls: { caFile: '/x' } })).toThrow(/not both/)
    expect(config(url('127.0.0.1', 'a=b'), { tls: { rejectUnauthorized: false } })).toThrow(ConfigError)
    const missing = new PostgresDurability({ connectionString: url('127.0.0.1', 'sslmode=verify-full&sslrootcert=/nonexistent/ca.pem') })
    await expect(missing.start()).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('/nonexistent/ca.pem (ENOENT)'),
    })
    const notPem = new PostgresDurability({
      connectionString: url('127.0.0.1', `sslmode=verify-full&sslrootcert=${certificates.dir}/client.ext`),
    })
    await expect(notPem.start()).rejects.toThrow(/holds no PEM certificate/)
  })

  it('the CLI reaches it with sslmode=verify-full and says TLS_CERTIFICATE_REFUSED (exit 2) for an untrusted CA', async () => {
    const tablePrefix = 'cli_'
    const backend = new PostgresDurability({
      connectionString: url('127.0.0.1', `sslmode=verify-full&sslrootcert=${certificates.caFile}`),
      tablePrefix,
    })
    await backend.start()
    await backend.journal('bot-a').write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('m1'), expectVersion: 0 }])
    await backend.stop()
    const good = await runCli([
      '--json',
      'stats',
      '--backend',
      url('127.0.0.1', `sslmode=verify-full&sslrootcert=${certificates.caFile}&tablePrefix=${tablePrefix}`),
    ])
    expect(good.code, good.stderr).toBe(0)
    expect(JSON.parse(good.stdout)).toMatchObject({ scope: 'bot-a', inbox: { total: 1 } })
    const refused = await runCli([
      '--json',
      'stats',
      '--backend',
      url('127.0.0.1', `sslmode=verify-full&sslrootcert=${certificates.otherCaFile}&tablePrefix=${tablePrefix}`),
    ])
    expect(refused.code).toBe(2)
    expect(refused.stdout + refused.stderr).toContain('TLS_CERTIFICATE_REFUSED')
  })
})
