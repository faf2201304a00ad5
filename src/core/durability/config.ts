/** The `durability` option of a bot: what a user writes, its defaults (docs/configuration.md lists them), and the one function that resolves it. */
import type { MessageTracing } from './tracing.js'
import type { EncryptionOptions } from './encryption-options.js'
import { hostname } from 'node:os'
import { randomBytes } from 'node:crypto'
import { toMs, type Duration } from '../options/duration.js'
import { ConfigError } from '../errors/errors.js'
import { optionNames, refuseUnknownOptions } from '../options/options.js'
import type { DurabilityBackend } from './journal/backend.js'
import { LIMITS } from './limits.js'

export type { EncryptionOptions } from './encryption-options.js'

/** Backoff between attempts: exponential from `baseMs`, capped at `capMs`, with ± `jitter` (a fraction). */
export interface BackoffOptions {
  /** @default 1000 */
  baseMs?: number
  /** @default 60000 */
  capMs?: number
  /** @default 0.2 */
  jitter?: number
}

/** `BotConfig.durability`. */
export interface DurabilityOptions {
  /** Where the journals live. @default a new MemoryDurability */
  backend?: DurabilityBackend
  /** Lease owner: stable across restarts, unique per running replica. @default `<hostname>/<botId>/<connectionId>` (+ a per-boot suffix on a shared backend) */
  instanceId?: string
  /** Dispatch an inbound event even when the journal cannot record it. @default false */
  failOpen?: boolean
  /** The inbox: how inbound messages are leased, retried and dead-lettered. */
  inbox?: {
    /** Processing lease, extended by a heartbeat while the handler runs. @default '60s' */
    leaseMs?: Duration
    /** Runs charged before an inbound event that keeps failing is dead-lettered. @default 5 */
    maxAttempts?: number
    /** @default { baseMs: 1000, capMs: 60000, jitter: 0.2 } */
    backoff?: BackoffOptions
    /** Journal a serializable media reference so a replay can download it. @default true */
    mediaRefs?: boolean
  }
  /** The outbox: how sends are retried, deferred and dead-lettered, and what an ambiguous send does. */
  outbox?: {
    /** Retries after the first attempt before a send is dead-lettered. @default 5 */
    retries?: number
    /** @default as inbox.backoff */
    backoff?: BackoffOptions
    /** How long ctx.reply / bot.send retry inline before rejecting with SendDeferredError. @default '15s' */
    inlineMaxMs?: Duration
    /** A send whose outcome is unknown after a crash. @default 'skip' */
    onAmbiguous?: 'skip' | 'resend'
    /** A replay that produces different content under the same derived key. @default 'send' */
    onDiverged?: 'send' | 'skip'
    /** Larger payloads bypass the outbox, with a warning. @default 1 MiB */
    maxPayloadBytes?: number
    /** Lease of a send in flight (at least 20 ms). @default '60s' */
    leaseMs?: Duration
    /**
     * How long a send found ambiguous after a crash waits for the channel's status naming its key
     * before `onAmbiguous` applies; only with a provider that echoes the key (`echoesOutboxKey`).
     * 0 decides at once. @default '30s'
     */
    reconcileMs?: Duration
  }
  /** Period of the background sweeper. @default '1s' */
  pollMs?: Duration
  /** How long done/sent records are kept; 0 keeps them. @default '7d' */
  retention?: Duration
  /** The local clock (ms); lease times are corrected to the backend's clock. For tests. @default Date.now */
  clock?: () => number
  /** Wraps each message's admission, handler run and sends (`openTelemetryTracing()` of botmesh/telemetry). @default no tracing */
  tracing?: MessageTracing
  /**
   * Chat turns across replicas: at most one handler of a chat runs at a time in the whole deployment,
   * in arrival order, through a fenced, leased turn per chat in the journal. `true` takes the defaults.
   * @default false (each process serializes its own chats only: route each chat to one replica)
   */
  coordination?: boolean | CoordinationOptions
  /** 'leader': one replica holds the transport session, elected by a lease in the backend. @default 'any' */
  providerSession?: 'any' | 'leader'
  /**
   * Seals message content (bodies, media references, sends, flow answers) with AES-256-GCM before
   * any backend sees it; ids, states, times and keys stay clear (see docs/security.md).
   * @default none: the journal is kept in clear
   */
  encryption?: EncryptionOptions
}

/** `durability.coordination` when given as an object. */
export interface CoordinationOptions {
  /** Lease of a chat turn, renewed by a heartbeat while its handler runs. @default as inbox.leaseMs */
  turnLeaseMs?: Duration
  /** Lease of the transport session with providerSession 'leader', renewed by a heartbeat. @default '10s' */
  sessionLeaseMs?: Duration
}

/** Backoff with every field set. */
export type ResolvedBackoff = Required<BackoffOptions>

/** The durability options with every default applied and every duration in ms. */
export interface DurabilityConfig {
  instanceId: string
  failOpen: boolean
  inbox: { leaseMs: number; maxAttempts: number; backoff: ResolvedBackoff; mediaRefs: boolean }
  outbox: {
    retries: number
    backoff: ResolvedBackoff
    inlineMaxMs: number
    onAmbiguous: 'skip' | 'resend'
    onDiverged: 'send' | 'skip'
    maxPayloadBytes: number
    reconcileMs: number
    leaseMs: number
  }
  pollMs: number
  retentionMs: number
  clock: () => number
  /** null: no chat turns (the per-process chat queue only). */
  coordination: { turnLeaseMs: number } | null
  providerSession: 'any' | 'leader'
  /** Lease of the transport session (providerSession 'leader'). */
  sessionLeaseMs: number
}

export const DEFAULT_BACKOFF: ResolvedBackoff = { baseMs: 1000, capMs: 60_000, jitter: 0.2 }
export const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024

/** Who is asking, for the instanceId default. */
export interface Namespace {
  tenantId: string
  environmentId: string
  botId: string
  connectionId: string
}

/** How long done and sent records are kept when `retention` is not given. */
export const RETENTION_DEFAULT = '7d'

/** A per-boot suffix, so two processes on one host never share a default instanceId. */
const BOOT_SUFFIX = randomBytes(4).toString('hex')

/** Resolves user options into a full config; throws ConfigError with the option's name when one is invalid. */
export function resolveDurabilityConfig(options: DurabilityOptions, namespace: Namespace, backend: DurabilityBackend): DurabilityConfig {
  refuseUnknownDurabilityOptions(options)
  const inboxBackoff = resolveBackoff(options.inbox?.backoff, DEFAULT_BACKOFF, 'inbox.backoff')
  const config: DurabilityConfig = {
    instanceId: options.instanceId ?? defaultInstanceId(namespace, backend.shared),
    failOpen: options.failOpen ?? false,
    inbox: {
      leaseMs: toMs(options.inbox?.leaseMs ?? '60s', 'durability.inbox.leaseMs'),
      maxAttempts: positiveInteger(options.inbox?.maxAttempts ?? 5, 'durability.inbox.maxAttempts', 1),
      backoff: inboxBackoff,
      mediaRefs: options.inbox?.mediaRefs ?? true,
    },
    outbox: {
      retries: positiveInteger(options.outbox?.retries ?? 5, 'durability.outbox.retries', 0),
      backoff: resolveBackoff(options.outbox?.backoff, inboxBackoff, 'outbox.backoff'),
      inlineMaxMs: toMs(options.outbox?.inlineMaxMs ?? '15s', 'durability.outbox.inlineMaxMs'),
      onAmbiguous: oneOf(options.outbox?.onAmbiguous ?? 'skip', ['skip', 'resend'], 'durability.outbox.onAmbiguous'),
      onDiverged: oneOf(options.outbox?.onDiverged ?? 'send', ['send', 'skip'], 'durability.outbox.onDiverged'),
      maxPayloadBytes: positiveInteger(
        options.outbox?.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES,
        'durability.outbox.maxPayloadBytes',
        1,
      ),
      leaseMs: toMs(options.outbox?.leaseMs ?? '60s', 'durability.outbox.leaseMs'),
      reconcileMs: toMs(options.outbox?.reconcileMs ?? '30s', 'durability.outbox.reconcileMs'),
    },
    pollMs: toMs(options.pollMs ?? '1s', 'durability.pollMs'),
    retentionMs: toMs(options.retention ?? RETENTION_DEFAULT, 'durability.retention'),
    clock: options.clock ?? Date.now,
    ...resolveCoordination(options),
  }
  if (config.outbox.leaseMs < LIMITS.outboxLeaseMinMs) {
    throw new ConfigError(`durability.outbox.leaseMs must be at least ${LIMITS.outboxLeaseMinMs} ms; got ${config.outbox.leaseMs} ms`)
  }
  if (config.inbox.leaseMs < LIMITS.inboxLeaseMinMs) {
    throw new ConfigError(`durability.inbox.leaseMs must be at least ${LIMITS.inboxLeaseMinMs} ms; got ${config.inbox.leaseMs} ms`)
  }
  if (config.pollMs < 1) throw new ConfigError(`durability.pollMs must be at least 1 ms; got ${config.pollMs} ms`)
  if (!config.instanceId.trim()) throw new ConfigError('durability.instanceId must not be empty')
  if (Buffer.byteLength(config.instanceId) > LIMITS.idBytesMax || /[\u0000-\u001f]/.test(config.instanceId))
    throw new ConfigError(`durability.instanceId must be at most ${LIMITS.idBytesMax} bytes without control characters`)
  return config
}

/** The coordination and providerSession options, validated. */
function resolveCoordination(options: DurabilityOptions): Pick<DurabilityConfig, 'coordination' | 'providerSession' | 'sessionLeaseMs'> {
  const given = options.coordination ?? false
  if (typeof given !== 'boolean' && (typeof given !== 'object' || given === null || Array.isArray(given))) {
    throw new ConfigError(`durability.coordination must be true, false or { turnLeaseMs, sessionLeaseMs }; got ${JSON.stringify(given)}`)
  }
  const object = typeof given === 'object' ? given : {}
  refuseUnknownOptions('durability.coordination', object, optionNames<CoordinationOptions>({ turnLeaseMs: true, sessionLeaseMs: true }), {
    leaseMs: 'a chat turn takes turnLeaseMs, the transport session sessionLeaseMs',
  })
  const inboxLeaseMs = toMs(options.inbox?.leaseMs ?? '60s', 'durability.inbox.leaseMs')
  const turnLeaseMs = toMs(object.turnLeaseMs ?? inboxLeaseMs, 'durability.coordination.turnLeaseMs')
  const sessionLeaseMs = toMs(object.sessionLeaseMs ?? '10s', 'durability.coordination.sessionLeaseMs')
  for (const [name, ms] of [
    ['turnLeaseMs', turnLeaseMs],
    ['sessionLeaseMs', sessionLeaseMs],
  ] as const) {
    if (ms < LIMITS.turnLeaseMinMs)
      throw new ConfigError(`durability.coordination.${name} must be at least ${LIMITS.turnLeaseMinMs} ms; got ${ms} ms`)
  }
  return {
    coordination: given === false ? null : { turnLeaseMs },
    providerSession: oneOf(options.providerSession ?? 'any', ['any', 'leader'], 'durability.providerSession'),
    sessionLeaseMs,
  }
}

/** Every option name the durability key takes, level by level; anything else is refused, named. */
function refuseUnknownDurabilityOptions(options: DurabilityOptions): void {
  refuseUnknownOptions(
    'durability',
    options,
    optionNames<DurabilityOptions>({
      backend: true,
      instanceId: true,
      failOpen: true,
      inbox: true,
      outbox: true,
      pollMs: true,
      retention: true,
      clock: true,
      tracing: true,
      coordination: true,
      providerSession: true,
      encryption: true,
    }),
    {
      turnLeaseMs: 'it belongs under coordination',
      leaseMs: 'it belongs under inbox or outbox',
      backoff: 'it belongs under inbox or outbox',
      retries: 'it belongs under outbox',
      maxAttempts: 'it belongs under inbox',
    },
  )
  refuseUnknownOptions(
    'durability.inbox',
    options.inbox,
    optionNames<NonNullable<DurabilityOptions['inbox']>>({ leaseMs: true, maxAttempts: true, backoff: true, mediaRefs: true }),
    {
      retries: 'inbound events take maxAttempts (runs charged before the dead-letter queue)',
    },
  )
  const outbox = optionNames<NonNullable<DurabilityOptions['outbox']>>({
    retries: true,
    backoff: true,
    inlineMaxMs: true,
    onAmbiguous: true,
    onDiverged: true,
    maxPayloadBytes: true,
    leaseMs: true,
    reconcileMs: true,
  })
  refuseUnknownOptions('durability.outbox', options.outbox, outbox, { maxAttempts: 'sends take retries (after the first attempt)' })
  for (const side of ['inbox', 'outbox'] as const)
    refuseUnknownOptions(
      `durability.${side}.backoff`,
      options[side]?.backoff,
      optionNames<BackoffOptions>({ baseMs: true, capMs: true, jitter: true }),
    )
}

/** `<hostname>/<botId>/<connectionId>`, plus a per-boot suffix on a shared backend. */
export function defaultInstanceId(namespace: Namespace, shared: boolean): string {
  const base = `${hostname()}/${namespace.botId}/${namespace.connectionId}`
  return shared ? `${base}/${BOOT_SUFFIX}` : base
}

function resolveBackoff(given: BackoffOptions | undefined, fallback: ResolvedBackoff, option: string): ResolvedBackoff {
  const backoff = { ...fallback, ...given }
  if (!(backoff.baseMs >= 0) || !(backoff.capMs >= backoff.baseMs)) {
    throw new ConfigError(`durability.${option} needs 0 <= baseMs <= capMs; got ${JSON.stringify(given)}`)
  }
  if (!(backoff.jitter >= 0 && backoff.jitter <= 1)) {
    throw new ConfigError(`durability.${option}.jitter must be between 0 and 1; got ${backoff.jitter}`)
  }
  return backoff
}

function positiveInteger(value: number, option: string, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${option} must be an integer of at least ${min}; got ${value}`)
  return value
}

function oneOf<T extends string>(value: T, allowed: readonly T[], option: string): T {
  if (!allowed.includes(value))
    throw new ConfigError(`${option} must be ${allowed.map((a) => `'${a}'`).join(' or ')}; got ${JSON.stringify(value)}`)
  return value
}
