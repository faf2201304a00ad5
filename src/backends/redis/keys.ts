/**
 * Every Redis key the backend uses is built here, and nowhere else (the Lua scripts receive them
 * as KEYS, or derive a state index's key from the entries key with `STATE_KEY_INFIX`).
 *
 * Durability keys, one group per (scope, collection), all sharing one hash tag so that a Redis
 * Cluster keeps them in one slot and a script can touch them together:
 *
 *   <prefix>:{durable:<collection>:<scope>}               hash   entry key -> envelope (envelope.ts)
 *   <prefix>:{durable:<collection>:<scope>}:due           zset   entry key, score = due
 *   <prefix>:{durable:<collection>:<scope>}:states        set    the state names ever written
 *   <prefix>:{durable:<collection>:<scope>}:state:<state> zset   time-ordered members (envelope.ts), score 0
 *   <prefix>:{durable:inbox:<scope>}:chats                hash   chat (its JSON, as cjson writes it) -> its unfinished messages (steps.ts)
 *   <prefix>:{durable:scopes}                             set    JSON [scope, collection] pairs written
 *
 * Store keys (`RedisStore`), which the durability never touches, one key per operation:
 *
 *   <prefix>:store:<scope>:user:<chatId>                  hash   user data key -> JSON
 *   <prefix>:store:<scope>:checkpoint:<chatId>            string JSON
 *   <prefix>:store:<scope>:log:<chatId>                   list   JSON message log entries
 */
import { ConfigError } from '../../core/errors/errors.js'
import { INBOX_STATES, OUTBOX_STATES } from '../../core/backend-internals.js'

/** The default key prefix. */
export const DEFAULT_PREFIX = 'botmesh'

/** Joins an entries key and a state name into that state's index key (the scripts use it too). */
export const STATE_KEY_INFIX = ':state:'

/** The keys of one (scope, collection) group. */
export interface CollectionKeys {
  /** The hash of entries; also the base the other keys extend. */
  entries: string
  /** The sorted set of the due index. */
  due: string
  /** The set of states that have a state-time index. */
  states: string
  /** The state-time index of one state. */
  state(state: string): string
}

/** The KEYS of the steps' scripts for one scope (`RedisKeys.steps`). */
export interface StepKeys {
  /** Entries, due, states, the state index of each of INBOX_STATES, the chats hash. */
  inbox: readonly string[]
  /** Entries, due, states, the state index of each of OUTBOX_STATES. */
  outbox: readonly string[]
}

/** Builds the keys of one prefix. */
export class RedisKeys {
  /** The prefix every key starts with. */
  readonly prefix: string

  constructor(prefix: string = DEFAULT_PREFIX) {
    if (prefix.length === 0) throw new ConfigError('the Redis key prefix must not be empty')
    // A brace in the prefix would become the hash tag of every key and put all scopes in one slot.
    if (/[{}]/.test(prefix)) throw new ConfigError(`the Redis key prefix "${prefix}" must not contain { or }`)
    this.prefix = prefix
  }

  /** The keys of one scope's collection (`inbox`, `outbox`, `instances`). */
  collection(scope: string, collection: string): CollectionKeys {
    const entries = `${this.prefix}:{durable:${encodeTagPart(collection, true)}:${encodeTagPart(scope, false)}}`
    return {
      entries,
      due: `${entries}:due`,
      states: `${entries}:states`,
      state: (state: string) => `${entries}${STATE_KEY_INFIX}${state}`,
    }
  }

  /**
   * @internal The keys the steps' scripts take (steps.ts): the inbox group with a state index per inbox
   * state and the chats hash, all under the inbox's hash tag; the outbox group with one per outbox
   * state. Every key a script touches is in its KEYS, so each list is one Cluster slot.
   */
  steps(scope: string): StepKeys {
    const inbox = this.collection(scope, 'inbox')
    const outbox = this.collection(scope, 'outbox')
    return {
      inbox: [inbox.entries, inbox.due, inbox.states, ...INBOX_STATES.map(inbox.state), `${inbox.entries}:chats`],
      outbox: [outbox.entries, outbox.due, outbox.states, ...OUTBOX_STATES.map(outbox.state)],
    }
  }

  /** The set of (scope, collection) pairs that were written, for `scopes()`. */
  get scopes(): string {
    return `${this.prefix}:{durable:scopes}`
  }

  /** A SCAN pattern matching every durability key of this prefix (and only those). */
  get durablePattern(): string {
    return `${globEscape(this.prefix)}:{durable:*`
  }

  /** One chat's user data (a hash). */
  storeUser(scope: string, chatId: string): string {
    return `${this.prefix}:store:${encodeStorePart(scope)}:user:${encodeStorePart(chatId)}`
  }

  /** One chat's flow checkpoint (a string). */
  storeCheckpoint(scope: string, chatId: string): string {
    return `${this.prefix}:store:${encodeStorePart(scope)}:checkpoint:${encodeStorePart(chatId)}`
  }

  /** One chat's message log (a list, oldest first). */
  storeLog(scope: string, chatId: string): string {
    return `${this.prefix}:store:${encodeStorePart(scope)}:log:${encodeStorePart(chatId)}`
  }

  /** A SCAN pattern matching every store key of this prefix. */
  get storePattern(): string {
    return `${globEscape(this.prefix)}:store:*`
  }
}

/**
 * Percent-encodes what would break the hash tag (`{`, `}`) or the encoding (`%`); a collection name
 * also has `:` encoded, so `{durable:<collection>:<scope>}` splits one way only. Ordinary scope
 * ids (letters, digits, `/`, `:`, `-`) stay readable.
 */
function encodeTagPart(part: string, colon: boolean): string {
  return part.replace(colon ? /[%{}:]/g : /[%{}]/g, percent)
}

/** Store key parts are separated by `:`, so it is encoded too (no two (scope, chat) pairs share a key). */
function encodeStorePart(part: string): string {
  return part.replace(/[%{}:]/g, percent)
}

function percent(char: string): string {
  return `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`
}

function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (char) => `\\${char}`)
}
