/**
 * The error groups (src/core/errors/error-groups.ts): every narrower error botmesh throws is an instance of
 * the exported class that says what to do about it, keeps its code, and carries the group's details
 * (the journal file, the damaged line, the send's key) where a user reads them.
 */
import { describe, expect, it } from 'vitest'
import {
  BotmeshError,
  ConfigError,
  JournalStateError,
  JournalUnavailableError,
  MediaUnavailableError,
  ProviderError,
  RecordStateError,
  SendFailedError,
} from '../../src/index.js'
import {
  AppendLogCorruptError,
  BackendUrlError,
  DriverMissingError,
  EncryptionKeyMissingError,
  InvalidStateError,
  JournalClosedError,
  JournalCorruptError,
  JournalLockedError,
  JournalMissingError,
  JournalReadOnlyError,
  LeaseLostError,
  PayloadNotJournaledError,
  RecordNotFoundError,
  SendDeadError,
  TlsCertificateError,
  UnknownOptionError,
} from '../../src/core/errors/errors.js'
import { SealedValueAlteredError, UnsealedValueError } from '../../src/core/encryption/encryption-errors.js'
import { ConcurrentChangeError } from '../../src/core/durability/operations/operations.js'
import { ChannelApiError, MediaRefusedError, ProviderConfigError } from '../../src/providers/shared/errors.js'

describe('the error groups', () => {
  it('puts each narrower error in the group a user catches, with its code', () => {
    const cases: [BotmeshError<string>, abstract new (...args: never[]) => Error, string][] = [
      [new UnknownOptionError('o', ['x'], 'x'), ConfigError, 'CONFIG_INVALID'],
      [new DriverMissingError('pg', 'PostgreSQL'), ConfigError, 'DRIVER_MISSING'],
      [new BackendUrlError('x', 'BACKEND_SCHEME_UNKNOWN'), ConfigError, 'BACKEND_SCHEME_UNKNOWN'],
      [new TlsCertificateError('x', 'CERT_HAS_EXPIRED'), ConfigError, 'TLS_CERTIFICATE_REFUSED'],
      [new EncryptionKeyMissingError('a record', 'k1', 'missing'), JournalUnavailableError, 'ENCRYPTION_KEY_MISSING'],
      [new SealedValueAlteredError('a record', 'k1'), JournalUnavailableError, 'ENCRYPTION_ALTERED'],
      [new UnsealedValueError('a record'), JournalUnavailableError, 'ENCRYPTION_UNSEALED'],
      [new JournalCorruptError('f', 'x'), JournalStateError, 'JOURNAL_CORRUPT'],
      [new AppendLogCorruptError('f', 3, 40, 'x'), JournalStateError, 'APPEND_LOG_CORRUPT'],
      [new JournalLockedError('f', 7), JournalStateError, 'JOURNAL_LOCKED'],
      [new JournalClosedError('f'), JournalStateError, 'JOURNAL_CLOSED'],
      [new JournalReadOnlyError('f'), JournalStateError, 'JOURNAL_READ_ONLY'],
      [new JournalMissingError('f', 'does not exist'), JournalStateError, 'JOURNAL_MISSING'],
      [new RecordNotFoundError('inbox', 'i'), RecordStateError, 'RECORD_NOT_FOUND'],
      [new InvalidStateError('inbox', 'i', 'done', ['dead']), RecordStateError, 'INVALID_STATE'],
      [new ConcurrentChangeError('inbox', 'i'), RecordStateError, 'CONCURRENT_CHANGE'],
      [new LeaseLostError('inbox', 'i', 1), RecordStateError, 'LEASE_LOST'],
      [new SendDeadError('k', 'x'), SendFailedError, 'SEND_DEAD'],
      [new PayloadNotJournaledError('k', 'x'), SendFailedError, 'PAYLOAD_NOT_JOURNALED'],
      [new ProviderConfigError('tg', 'x'), ProviderError, 'PROVIDER_CONFIG_INVALID'],
      [new ChannelApiError('tg', 'CHANNEL_TIMEOUT', 'x'), ProviderError, 'CHANNEL_TIMEOUT'],
      [new MediaRefusedError('tg', 'size', 'x'), MediaUnavailableError, 'MEDIA_UNAVAILABLE'],
    ]
    for (const [error, group, code] of cases) {
      expect(error, error.name).toBeInstanceOf(group)
      expect(error.code, error.name).toBe(code)
    }
  })

  it('keeps what each kind of error was retried for', () => {
    expect(new ConcurrentChangeError('inbox', 'i').retryable).toBe(true)
    expect(new LeaseLostError('inbox', 'i', 1).retryable).toBe(false)
    expect(new JournalUnavailableError('x').retryable).toBe(true)
    expect(new EncryptionKeyMissingError('a record', 'k1', 'missing').retryable).toBe(false)
    expect(new DriverMissingError('pg', 'PostgreSQL').retryable).toBe(false)
  })

  it('carries the journal file, the damaged entry and the send key on the group', () => {
    const damaged: JournalStateError = new AppendLogCorruptError('bot.json.log', 3, 40, 'bad checksum')
    expect([damaged.file, damaged.line, damaged.offset]).toEqual(['bot.json.log', 3, 40])
    expect(damaged.message).toBe(
      'bot.json.log: append log entry at line 3 (byte offset 40) is damaged: bad checksum; restore it from a backup or move it aside',
    )
    const locked: JournalStateError = new JournalLockedError('bot.json', 7)
    expect([locked.file, locked.line]).toEqual(['bot.json', undefined])
    const dead: SendFailedError = new SendDeadError('reply:1', 'retries ran out')
    expect(dead.key).toBe('reply:1')
  })
})
