/**
 * The IMAP side: a loop that takes the mailbox's unseen messages in UID order, hands each to the
 * sink, and flags it `\Seen` only once the inbox journaled it. A crash or a journal that refuses
 * leaves it unseen, and the next pass takes it again. A message over the size cap (asked before it
 * is fetched) or failing the optional DMARC check (`inbound-checks.ts`) is flagged `\Seen` without
 * being journaled, and reported to `onError`. Between passes the loop waits for the server
 * to announce new mail (IDLE) or `pollMs`. One loop per provider; `stop` ends it and logs out.
 */
import type { ImapFlow, ImapFlowOptions } from 'imapflow'
import type { InboundEvent } from '../../core/provider/provider.js'
import type { EmailDrivers } from './client.js'
import { WakeableSleep } from '../shared/wakeable-sleep.js'
import { dmarcProblem, EmailNotAuthenticatedError, EmailTooLargeError, type AuthenticationResultsOption } from './inbound-checks.js'
import { EMAIL_LIMITS } from './limits.js'
import { inboundOf } from './messages.js'

/** What the mailbox loop needs from its provider. */
export interface MailboxDeps {
  drivers: EmailDrivers
  imap: ImapFlowOptions
  mailbox: string
  self: string
  pollMs: number
  /** The largest message fetched (its `RFC822.SIZE`, asked first). */
  messageBytesMax: number
  /** The DMARC check, when the operator asked for one. */
  authenticationResults: AuthenticationResultsOption | undefined
  sink: (event: InboundEvent) => Promise<void>
  onError: (error: unknown) => void
}

/** A running mailbox loop. */
export class MailboxPoller {
  #stopped = false
  #loop: Promise<void> | undefined
  #client: ImapFlow | undefined
  /** The wait between polls; new mail, a dropped connection or `stop` ends it. */
  readonly #sleeping = new WakeableSleep()

  constructor(private readonly deps: MailboxDeps) {}

  /** Starts the loop (idempotent). */
  start(): void {
    this.#loop ??= this.#run()
  }

  /** Ends the loop and logs out. Idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true
    this.#sleeping.wake()
    await this.#loop
  }

  async #run(): Promise<void> {
    let failures = 0
    while (!this.#stopped) {
      try {
        const client = (this.#client ??= await this.#connect())
        await this.#pass(client)
        failures = 0
        await this.#idle(client, this.deps.pollMs)
      } catch (error) {
        if (this.#stopped) break
        this.deps.onError(error)
        this.#client?.close()
        this.#client = undefined
        failures++
        await this.#idle(undefined, Math.min(EMAIL_LIMITS.pollBackoffMaxMs, EMAIL_LIMITS.pollBackoffBaseMs * 2 ** Math.min(failures, 16)))
      }
    }
    await this.#client?.logout().catch(() => this.#client?.close())
    this.#client = undefined
  }

  async #connect(): Promise<ImapFlow> {
    const client = new this.deps.drivers.ImapFlow({ logger: false, ...this.deps.imap })
    // A dropped connection ends the wait; the next pass reconnects.
    client.on('error', () => this.#sleeping.wake())
    client.on('close', () => this.#sleeping.wake())
    client.on('exists', () => this.#sleeping.wake())
    await client.connect()
    await client.mailboxOpen(this.deps.mailbox)
    return client
  }

  /** Hands every unseen message to the sink, flagging each `\Seen` once it is journaled. */
  async #pass(client: ImapFlow): Promise<void> {
    if (!client.usable) throw new Error('the IMAP connection closed')
    const mailbox = client.mailbox
    const uidValidity = mailbox ? Number(mailbox.uidValidity) : 0
    const uids = ((await client.search({ seen: false }, { uid: true })) || []).sort((a, b) => a - b).slice(0, EMAIL_LIMITS.pollBatchMax)
    for (const uid of uids) {
      if (this.#stopped) return
      await this.#take(client, uid, uidValidity)
      await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true })
    }
  }

  /** Hands one message to the sink, unless it is over the size cap (asked before the fetch) or fails the DMARC check. */
  async #take(client: ImapFlow, uid: number, uidValidity: number): Promise<void> {
    const sized = await client.fetchOne(String(uid), { size: true }, { uid: true })
    if (!sized) return
    const bytes = Number(sized.size)
    if (!Number.isFinite(bytes) || bytes > this.deps.messageBytesMax)
      return this.deps.onError(new EmailTooLargeError(uid, bytes, this.deps.messageBytesMax))
    const message = await client.fetchOne(String(uid), { source: true }, { uid: true })
    if (!message || !message.source) return
    const mail = await this.deps.drivers.simpleParser(message.source)
    const problem = this.deps.authenticationResults && dmarcProblem(mail, this.deps.authenticationResults)
    if (problem) return this.deps.onError(new EmailNotAuthenticatedError(uid, problem))
    const event = inboundOf(mail, { uid, uidValidity }, this.deps.self)
    if (event) await this.deps.sink(event)
  }

  /** Waits for new mail, a dropped connection, `stop`, or `ms`. */
  #idle(client: ImapFlow | undefined, ms: number): Promise<void> {
    if (this.#stopped || (client && !client.usable)) return Promise.resolve()
    return this.#sleeping.sleep(ms)
  }
}
