/**
 * TLS of the pool botmesh creates. A connection string's libpq parameters (`sslmode`,
 * `sslrootcert`, `sslcert`, `sslkey`) are read here with libpq's meaning, and handed to pg as its
 * `ssl` setting, so `sslmode=require` encrypts without checking the certificate (as psql does)
 * and `sslmode=verify-full` checks its chain and name; the `tls` option is `verify-full` with the
 * CA and client certificate it names (docs/backends/postgres.md, "TLS"). Modes that would fall back
 * to clear text (`allow`, `prefer`) are refused: pg cannot fall back, and a journal should not.
 */
import { ConfigError } from '../../core/errors/errors.js'
import { checkTlsOptions, takeUrlParams, type StoreTlsOptions, type TlsSettingNames, type TlsVerification } from '../common/tls.js'

/** The `sslmode` values botmesh takes, and what each checks of the server's certificate (`false`: no TLS). */
const SSL_MODES: Readonly<Record<string, TlsVerification | false>> = {
  disable: false,
  require: 'none',
  'verify-ca': 'ca',
  'verify-full': 'full',
  // pg's own name for require.
  'no-verify': 'none',
}

/** The connection-string parameters read here; `uselibpqcompat` is pg's switch to the libpq meaning botmesh always uses. */
const SSL_PARAMS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'ssl', 'uselibpqcompat'] as const

/** Where a PostgreSQL caller gives the CA and the certificate's name (for the advice of a refused certificate). */
export const POSTGRES_TLS_SETTING_NAMES: TlsSettingNames = {
  ca: 'tls.caFile (?sslrootcert= in a connection string)',
  servername: 'tls.servername',
}

/** What the pool's `ssl` comes from: pg's own default (`PGSSLMODE`), off, or these settings. */
export type PostgresTls = { kind: 'default' } | { kind: 'off' } | { kind: 'on'; tls: StoreTlsOptions; verification: TlsVerification }

/** The connection string to give pg (TLS parameters taken out) and the TLS it asks for, checked. */
export function postgresTlsSettings(options: { connectionString?: string; tls?: StoreTlsOptions; pool?: unknown }): {
  connectionString: string | undefined
  tls: PostgresTls
} {
  if (options.tls !== undefined && options.pool !== undefined)
    throw new ConfigError('tls applies to the pool botmesh creates (connectionString); set ssl on the pool you pass')
  if (options.connectionString === undefined) return { connectionString: undefined, tls: tlsOption(options.tls) }
  const { url, taken } = takeUrlParams(options.connectionString, SSL_PARAMS)
  delete taken.uselibpqcompat
  if (Object.keys(taken).length === 0) return { connectionString: url, tls: tlsOption(options.tls) }
  if (options.tls !== undefined)
    throw new ConfigError(
      'give the PostgreSQL TLS settings in the connection string (sslmode, sslrootcert…) or in the tls option, not both',
    )
  return { connectionString: url, tls: fromParams(taken) }
}

function tlsOption(tls: StoreTlsOptions | undefined): PostgresTls {
  if (tls === undefined) return { kind: 'default' }
  checkTlsOptions('tls', tls)
  return { kind: 'on', tls, verification: 'full' }
}

function fromParams(params: Record<string, string>): PostgresTls {
  const mode = params.sslmode ?? sslFlag(params.ssl)
  const verification = SSL_MODES[mode]
  if (verification === undefined) {
    const fallback = mode === 'allow' || mode === 'prefer' ? ' (botmesh does not fall back to clear text: pick one)' : ''
    throw new ConfigError(`sslmode=${mode} is not supported${fallback}; use disable, require, verify-ca or verify-full`)
  }
  if (verification === false) return { kind: 'off' }
  if (verification === 'ca' && params.sslrootcert === undefined)
    throw new ConfigError(
      'sslmode=verify-ca needs sslrootcert: checking the chain alone against public CAs accepts any host they signed for',
    )
  const tls: StoreTlsOptions = {
    ...(params.sslrootcert === undefined ? {} : { caFile: params.sslrootcert }),
    ...(params.sslcert === undefined ? {} : { certFile: params.sslcert }),
    ...(params.sslkey === undefined ? {} : { keyFile: params.sslkey }),
  }
  checkTlsOptions('the connection string', tls)
  // As libpq: require with a root certificate checks the chain (verify-ca).
  return { kind: 'on', tls, verification: verification === 'none' && tls.caFile !== undefined ? 'ca' : verification }
}

/** pg's `ssl=true|1|false|0`, as an sslmode; files without either mean verify-full (the CA given is there to be checked). */
function sslFlag(flag: string | undefined): string {
  if (flag === undefined || flag === 'true' || flag === '1') return 'verify-full'
  if (flag === 'false' || flag === '0') return 'disable'
  throw new ConfigError(`ssl=${flag} is not understood; use sslmode=disable, require, verify-ca or verify-full`)
}
