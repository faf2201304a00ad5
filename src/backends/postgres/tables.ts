/**
 * Every table, index, function and trigger name of the PostgreSQL backend, built from the table
 * prefix in this one place. The prefix is validated before it reaches any SQL, and every name is
 * double-quoted, so a prefix can neither inject SQL nor change case.
 */
import { createHash } from 'node:crypto'
import { ConfigError } from '../../core/errors/errors.js'

/** What a table prefix may look like: an SQL identifier start, then letters, digits and underscores. */
export const TABLE_PREFIX_PATTERN = /^[a-z_][a-z0-9_]*$/i

/**
 * The longest prefix we accept. PostgreSQL cuts identifiers at 63 bytes; the longest name we
 * derive adds 20 characters (`durable_count_delete`), so two prefixes can never collide after a cut.
 */
export const TABLE_PREFIX_LENGTH_MAX = 40

/** The default prefix of every table the backend creates. */
export const TABLE_PREFIX_DEFAULT = 'botmesh_'

/** Checks a table prefix and returns it. */
export function validateTablePrefix(prefix: string): string {
  if (typeof prefix !== 'string' || !TABLE_PREFIX_PATTERN.test(prefix)) {
    throw new ConfigError(`tablePrefix must match ${TABLE_PREFIX_PATTERN} (letters, digits and underscores), got ${JSON.stringify(prefix)}`)
  }
  if (prefix.length > TABLE_PREFIX_LENGTH_MAX) {
    throw new ConfigError(`tablePrefix must be at most ${TABLE_PREFIX_LENGTH_MAX} characters, got ${prefix.length}`)
  }
  return prefix
}

/** Double-quotes an identifier that passed validation. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/** Names of the journal's objects (`{prefix}durable` and its indexes). Quoted unless the field says otherwise. */
export interface DurableTables {
  /** The table prefix they were built from. */
  prefix: string
  /** The journal table: entries, and the counter rows of schema.ts. */
  durable: string
  /** The durable table's bare (unquoted) name, for catalog lookups. */
  durableName: string
  /** The index of entries with a due time, by (scope, collection, due, key): what the sweeper reads. */
  dueIndex: string
  /** The index by (scope, collection, state, state_time, key): a state in time order, for pages, counts and purges. */
  stateIndex: string
  /** What versions before one-table counting created beside the table, dropped on start (schema.ts). */
  legacy: {
    /** The old per-state count table (`{prefix}durable_counts`). */
    counts: string
    /** The old trigger function that kept it (`{prefix}durable_count`). */
    countsFunction: string
    /** Bare trigger names (trigger names are local to their table). */
    countTriggers: {
      /** The old trigger counting inserted rows. */
      insert: string
      /** The old trigger moving a count when a row's state changes. */
      update: string
      /** The old trigger counting deleted rows. */
      delete: string
    }
  }
  /** The text whose hash names the advisory lock that serializes schema creation. */
  lockName: string
  /** @internal The functions of the steps (steps/), created with the schema. */
  steps: StepFunctions
}

/** @internal Names of the steps' SQL functions (steps/record-functions.ts, steps-function.ts, take-back-function.ts), quoted. */
export interface StepFunctions {
  /** Admits, journals and settles a batch of steps (`{prefix}durable_steps`). */
  steps: string
  /** The sweeper's pass (`{prefix}durable_take_back`). */
  takeBack: string
  /** The advisory lock of a chat. */
  chatLock: string
  /** A record's copy to read. */
  cleaned: string
  /** A record's fields and its view. */
  opened: string
  /** A record with fields set. */
  rewritten: string
  /** A field's JSON text. */
  rawOf: string
  /** isFenced. */
  fenced: string
  /** isFree. */
  free: string
  /** A chat's head. */
  head: string
  /** A claim, written. */
  claimed: string
  /** The counters moved. */
  counted: string
}

/** The journal's object names under a prefix. */
export function durableTables(prefix: string): DurableTables {
  validateTablePrefix(prefix)
  const name = `${prefix}durable`
  return {
    prefix,
    durable: quoteIdentifier(name),
    durableName: name,
    dueIndex: quoteIdentifier(`${name}_due`),
    stateIndex: quoteIdentifier(`${name}_state`),
    legacy: {
      counts: quoteIdentifier(`${name}_counts`),
      countsFunction: quoteIdentifier(`${name}_count`),
      countTriggers: { insert: `${name}_count_insert`, update: `${name}_count_update`, delete: `${name}_count_delete` },
    },
    lockName: `botmesh:schema:${name}`,
    steps: {
      steps: quoteIdentifier(`${name}_steps`),
      takeBack: quoteIdentifier(`${name}_take_back`),
      chatLock: quoteIdentifier(`${name}_chat_lock`),
      cleaned: quoteIdentifier(`${name}_cleaned`),
      opened: quoteIdentifier(`${name}_opened`),
      rewritten: quoteIdentifier(`${name}_rewritten`),
      rawOf: quoteIdentifier(`${name}_raw_of`),
      fenced: quoteIdentifier(`${name}_fenced`),
      free: quoteIdentifier(`${name}_free`),
      head: quoteIdentifier(`${name}_head`),
      claimed: quoteIdentifier(`${name}_claimed`),
      counted: quoteIdentifier(`${name}_counted`),
    },
  }
}

/** Names of the store's tables: user data, flow checkpoints and the message log. */
export interface StoreTables {
  /** The table prefix they were built from. */
  prefix: string
  /** Per-chat user data: one row per (scope, chat, key) (`{prefix}users`). */
  users: string
  /** Flow checkpoints: one row per (scope, chat) (`{prefix}checkpoints`). */
  checkpoints: string
  /** The message log: one row per message in or out of a chat (`{prefix}message_log`). */
  messageLog: string
  /** The message log's index by (scope, chat, id), for a chat's history in order. */
  messageLogIndex: string
  /** The text whose hash names the advisory lock that serializes the store's schema creation. */
  lockName: string
}

/** The store's table names under a prefix. */
export function storeTables(prefix: string): StoreTables {
  validateTablePrefix(prefix)
  return {
    prefix,
    users: quoteIdentifier(`${prefix}users`),
    checkpoints: quoteIdentifier(`${prefix}checkpoints`),
    messageLog: quoteIdentifier(`${prefix}message_log`),
    messageLogIndex: quoteIdentifier(`${prefix}message_log_chat`),
    lockName: `botmesh:schema:${prefix}store`,
  }
}

/** The advisory lock key (a signed 64-bit integer, as SQL text) that serializes the creation of a schema. */
export function lockKey(lockName: string): string {
  return createHash('sha256').update(lockName).digest().readBigInt64BE(0).toString()
}
