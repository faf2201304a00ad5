/**
 * How a connection string's libpq TLS parameters become the pool's TLS (src/backends/postgres/tls.ts),
 * without a server: each sslmode's check of the certificate, the parameters taken out of the string
 * pg gets, and the settings refused. postgres-tls.test.ts runs them against a server.
 */
import { describe, expect, it } from 'vitest'
import { postgresTlsSettings } from '../../src/backends/postgres/tls.js'
import { ConfigError } from '../../src/core/errors/errors.js'

const BASE = 'postgres://bot:pw@db.internal:5432/app'
const settings = (query: string, extra: object = {}) => postgresTlsSettings({ connectionString: `${BASE}?${query}`, ...extra })

describe("PostgreSQL's TLS settings", () => {
  it('gives each sslmode the check libpq gives it', () => {
    expect(settings('sslmode=disable').tls).toEqual({ kind: 'off' })
    expect(settings('sslmode=require').tls).toEqual({ kind: 'on', tls: {}, verification: 'none' })
    expect(settings('sslmode=no-verify').tls).toEqual({ kind: 'on', tls: {}, verification: 'none' })
    // As libpq: require with a root certificate checks the chain.
    expect(settings('sslmode=require&sslrootcert=/ca.pem').tls).toEqual({ kind: 'on', tls: { caFile: '/ca.pem' }, verification: 'ca' })
    expect(settings('sslmode=verify-ca&sslrootcert=/ca.pem').tls).toMatchObject({ verification: 'ca' })
    expect(settings('sslmode=verify-full&sslrootcert=/ca.pem&sslcert=/c.pem&sslkey=/k.pem').tls).toEqual({
      kind: 'on',
      tls: { caFile: '/ca.pem', certFile: '/c.pem', keyFile: '/k.pem' },
      verification: 'full',
    })
    expect(settings('ssl=true').tls).toMatchObject({ verification: 'full' })
    expect(settings('ssl=0').tls).toEqual({ kind: 'off' })
    expect(settings('sslrootcert=/ca.pem').tls).toMatchObject({ verification: 'full' })
    expect(settings('application_name=x').tls).toEqual({ kind: 'default' })
    expect(postgresTlsSettings({ connectionString: BASE, tls: { caFile: '/ca.pem' } }).tls).toMatchObject({ verification: 'full' })
  })

  it('takes the TLS parameters out of the string pg gets and leaves the rest as written', () => {
    expect(
      settings('application_name=a%20b&sslmode=verify-full&sslrootcert=/ca.pem&uselibpqcompat=true&tablePrefix=t_').connectionString,
    ).toBe(`${BASE}?application_name=a%20b&tablePrefix=t_`)
    expect(settings('sslmode=require').connectionString).toBe(BASE)
    expect(postgresTlsSettings({ connectionString: BASE }).connectionString).toBe(BASE)
  })

  it('refuses what would fall back to clear text, check less than it says, or be ignored', () => {
    for (const mode of ['allow', 'prefer']) expect(() => settings(`sslmode=${mode}`)).toThrow(/does not fall back to clear text/)
    expect(() => settings('sslmode=verify-everything')).toThrow(ConfigError)
    expect(() => settings('sslmode=verify-ca')).toThrow(/needs sslrootcert/)
    expect(() => settings('ssl=maybe')).toThrow(/ssl=maybe/)
    expect(() => settings('sslmode=verify-full&sslkey=/k.pem')).toThrow(/needs its key/)
    expect(() => settings('sslmode=require', { tls: {} })).toThrow(/not both/)
    expect(() => postgresTlsSettings({ pool: {}, tls: {} })).toThrow(/set ssl on the pool/)
    expect(() => postgresTlsSettings({ connectionString: BASE, tls: { ca: '' } })).toThrow(/PEM text or a Buffer/)
  })
})
