/**
 * The WhatsApp Web connection: one socket at a time, rebuilt when it drops. A dropped connection
 * is reconnected with a growing wait (at once when WhatsApp asks for a restart after pairing); a
 * logged-out session, or one another client took over (`connectionReplaced`), is not: it is
 * reported, and sends wait until the operator pairs again. Updated credentials are saved as they
 * change, so the next socket (on this replica or the next leader) resumes the same session.
 */
import type { BaileysEventMap, UserFacingSocketConfig } from 'baileys'
import { ProviderConfigError } from '../shared/errors.js'
import type { BaileysSocket, BaileysSocketFactory } from './client.js'
import { DISCONNECT, disconnectCode } from './errors.js'
import { BAILEYS_LIMITS } from './limits.js'

/** What the connection needs from its provider. */
export interface ConnectionDeps {
  makeSocket: BaileysSocketFactory
  config: UserFacingSocketConfig
  saveCreds: (() => Promise<void> | void) | undefined
  onQr: ((qr: string) => void) | undefined
  onMessages: (upsert: BaileysEventMap['messages.upsert']) => void
  onError: (error: unknown) => void
}

type Listeners = { [E in 'connection.update' | 'creds.update' | 'messages.upsert']: (arg: BaileysEventMap[E]) => void }

/** One WhatsApp Web session, held while started. */
export class BaileysConnection {
  #socket: BaileysSocket | undefined
  #listeners: Listeners | undefined
  #open = false
  #stopped = true
  #failures = 0
  #reconnect: NodeJS.Timeout | undefined
  #settle: ((error?: Error) => void) | undefined

  constructor(private readonly deps: ConnectionDeps) {}

  /** The socket while the connection is open. */
  get socket(): BaileysSocket | undefined {
    return this.#open ? this.#socket : undefined
  }

  /**
   * Connects. Resolves once the connection opened, a QR code waits to be scanned, or `waitMs`
   * passed (it keeps connecting); rejects when the session is logged out.
   */
  async start(waitMs: number): Promise<void> {
    this.#stopped = false
    let timer: NodeJS.Timeout | undefined
    const settled = new Promise<void>((resolve, reject) => {
      this.#settle = (error) => (error ? reject(error) : resolve())
      timer = setTimeout(resolve, waitMs)
      timer.unref()
    })
    try {
      this.#connect()
      await settled
    } finally {
      clearTimeout(timer)
      this.#settle = undefined
    }
  }

  /** Closes the socket and stops reconnecting. Idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#reconnect)
    const socket = this.#detach()
    await socket?.end(undefined)
  }

  #connect(): void {
    const socket = this.deps.makeSocket(this.deps.config)
    const listeners: Listeners = {
      'connection.update': (update) => this.#update(socket, update),
      'creds.update': () => void Promise.resolve(this.deps.saveCreds?.()).catch(this.deps.onError),
      'messages.upsert': (upsert) => this.deps.onMessages(upsert),
    }
    for (const [event, listener] of Object.entries(listeners)) socket.ev.on(event as keyof Listeners, listener as never)
    this.#socket = socket
    this.#listeners = listeners
  }

  #update(socket: BaileysSocket, update: BaileysEventMap['connection.update']): void {
    if (this.#stopped || socket !== this.#socket) return
    if (update.qr) {
      this.deps.onQr?.(update.qr)
      this.#settle?.()
    }
    if (update.connection === 'open') {
      this.#open = true
      this.#failures = 0
      this.#settle?.()
    }
    if (update.connection === 'close') this.#closed(update.lastDisconnect?.error)
  }

  #closed(error: unknown): void {
    this.#open = false
    this.#detach()
    const code = disconnectCode(error)
    if (code === DISCONNECT.loggedOut || code === DISCONNECT.connectionReplaced) {
      const why =
        code === DISCONNECT.loggedOut
          ? 'the WhatsApp Web session was logged out: pair it again (a new auth state and QR code)'
          : 'another client opened this WhatsApp Web session; this one stays closed'
      const failure = new ProviderConfigError('baileys', why)
      if (this.#settle) this.#settle(failure)
      else this.deps.onError(failure)
      return
    }
    const waitMs =
      code === DISCONNECT.restartRequired
        ? 0
        : Math.min(BAILEYS_LIMITS.reconnectMaxMs, BAILEYS_LIMITS.reconnectBaseMs * 2 ** Math.min(this.#failures, 16))
    this.#failures++
    this.#reconnect = setTimeout(() => {
      if (this.#stopped) return
      try {
        this.#connect()
      } catch (failure) {
        this.deps.onError(failure)
        this.#closed(failure)
      }
    }, waitMs)
    this.#reconnect.unref()
  }

  #detach(): BaileysSocket | undefined {
    const [socket, listeners] = [this.#socket, this.#listeners]
    this.#socket = undefined
    this.#listeners = undefined
    this.#open = false
    if (socket && listeners)
      for (const [event, listener] of Object.entries(listeners)) socket.ev.off(event as keyof Listeners, listener as never)
    return socket
  }
}
