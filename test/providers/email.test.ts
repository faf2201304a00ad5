/**
 * The email transport against real servers started by the test: Dovecot for IMAP and the
 * smtp-server library for SMTP. A message is flagged \Seen only once the inbox journaled it (a
 * journal that refuses leaves it unseen, and the next pass takes it again); SMTP refusals as the
 * outbox's error classes without a password; and the end-to-end run through a durable Bot.
 */
import { ImapFlow } from 'imapflow'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import {
  PayloadTooLargeError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../src/core/provider/provider-errors.js'
import type { IProvider } from '../../src/core/provider/provider.js'
import { EmailProvider } from '../../src/providers/email/index.js'
import { ProviderConfigError } from '../../src/providers/shared/errors.js'
import { waitFor } from '../../test-utils/wait.js'
import { AdmitGate } from './admit-gate.js'
import { durableChannelSuite } from './durable-channel.js'
import { ImapServer, SmtpServer, dovecotAvailable, rawEmail } from './fixtures/mail-servers.js'
import { FAST, useBots } from './harness.js'

const BOT = 'bot@botmesh.test'
const USER = 'ana@example.test'
const enabled = dovecotAvailable()
const bots = useBots()
let imap: ImapServer
let smtp: SmtpServer
beforeAll(async () => {
  if (enabled) imap = await new ImapServer().start()
}, 30_000)
afterAll(async () => {
  await imap?.stop()
})
afterEach(async () => {
  await smtp?.stop()
})

function email(options: { onError?: (e: unknown) => void; rateLimitRetryAfterMs?: number; smtpPass?: string } = {}): EmailProvider {
  return new EmailProvider({
    address: BOT,
    smtp: { host: '127.0.0.1', port: smtp.port, auth: { user: smtp.user, pass: options.smtpPass ?? smtp.pass } },
    imap: { host: '127.0.0.1', port: imap.port, auth: { user: imap.user, pass: imap.pass } },
    pollMs: 200,
    rateLimitRetryAfterMs: options.rateLimitRetryAfterMs ?? 1000,
    onError: options.onError ?? (() => undefined),
  })
}

/** The test's own IMAP session: delivers mail into the bot's mailbox and reads its flags. */
async function mailbox<T>(work: (client: ImapFlow) => Promise<T>): Promise<T> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port: imap.port,
    secure: false,
    auth: { user: imap.user, pass: imap.pass },
    logger: false,
  })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.logout()
  }
}
const deliver = (raw: string) => mailbox((client) => client.append('INBOX', raw))
async function seen(messageId: string): Promise<boolean> {
  return mailbox(async (client) => {
    await client.mailboxOpen('INBOX', { readOnly: true })
    const uids = (await client.search({ header: { 'message-id': messageId }, seen: true }, { uid: true })) || []
    return uids.length > 0
  })
}
async function delivered(messageId: string, text: string, attachment?: { name: string; type: string; bytes: Buffer }) {
  await deliver(rawEmail({ from: USER, to: BOT, messageId, text, ...(attachment ? { attachment } : {}) }))
  await waitFor(() => seen(messageId), { timeoutMs: 15_000, message: `${messageId} to be flagged \\Seen` })
}

describe.runIf(enabled)('EmailProvider', () => {
  it('flags a message \\Seen only once the inbox journaled it; a refused one stays unseen and is taken again', async () => {
    smtp = await new SmtpServer().start()
    const gate = new AdmitGate(new MemoryDurability())
    const handled: string[] = []
    await bots.start({ provider: email(), durability: { ...FAST, backend: gate } }, (b) =>
      b.when(TEXT, async (ctx) => {
        handled.push(ctx.message.text!)
        await ctx.reply(`echo: ${ctx.message.text}`)
      }),
    )
    const held = gate.hold()
    await deliver(rawEmail({ from: USER, to: BOT, messageId: '<gate-1@example.test>', text: 'one' }))
    await waitFor(() => held.waiting() === 1, 15_000)
    expect(await seen('<gate-1@example.test>')).toBe(false)
    gate.failNext(1)
    held.release()
    await waitFor(() => seen('<gate-1@example.test>'), 15_000)
    await waitFor(() => smtp.received.length === 1, 15_000)
    expect(handled).toEqual(['one'])
    expect(gate.admits).toBe(1)
    expect(smtp.received[0]).toMatchObject({ text: expect.stringContaining('echo: one'), subject: 'Re: your message' })
    expect(smtp.received[0]!.to).toMatchObject({ text: USER })
  }, 40_000)

  it("sends text and attachments; SMTP refusals as the outbox's classes, without a password", async () => {
    smtp = await new SmtpServer().start()
    const p = email()
    expect((await p.send(USER, 'hi')).messageId).toMatch(/^<.+@.+>$/)
    await p.send(USER, {
      media: { type: 'document', buffer: Buffer.from('%PDF'), fileName: 'invoice.pdf', mimeType: 'application/pdf' },
      caption: 'your invoice',
    })
    expect(smtp.received[1]!.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['invoice.pdf', '%PDF']])
    const failure = (content: Parameters<EmailProvider['send']>[1] = 'x', provider = p) =>
      provider.send(USER, content).then(
        () => new Error('sent'),
        (e: Error) => e,
      )
    smtp.refuseNext({ stage: 'rcpt', code: 550, message: '5.1.1 mailbox unavailable' })
    expect(await failure()).toBeInstanceOf(RecipientUnreachableError)
    smtp.refuseNext({ stage: 'data', code: 552, message: '5.3.4 message size exceeds fixed limit' })
    expect(await failure()).toBeInstanceOf(PayloadTooLargeError)
    smtp.refuseNext({ stage: 'data', code: 451, message: '4.7.1 rate limit exceeded, slow down' })
    expect(await failure()).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 1000 })
    smtp.refuseNext({ stage: 'rcpt', code: 450, message: '4.2.1 mailbox busy' })
    const busy = await failure()
    expect(busy).toMatchObject({ code: 'CHANNEL_SERVER_ERROR', retryable: true })
    expect(busy).not.toBeInstanceOf(RateLimitedError)
    const wrong = await failure('x', email({ smtpPass: 'wrong-password-9876' }))
    expect(wrong).toMatchObject({ code: 'CHANNEL_UNAUTHORIZED', retryable: false })
    expect(wrong.message).not.toContain('wrong-password-9876')
    expect(await failure({ text: 'pick', buttons: [{ id: 'a', title: 'A' }] })).toBeInstanceOf(UnsupportedContentError)
    await p.stop()
  }, 40_000)

  it('refuses an address or a server without a login when constructed', () => {
    const server = { host: 'h', port: 1, auth: { user: 'u', pass: 'p' } }
    expect(() => new EmailProvider({ address: 'not an address', smtp: server, imap: server })).toThrow(ProviderConfigError)
    expect(() => new EmailProvider({ address: BOT, smtp: { host: 'h', port: 1 } as never, imap: server })).toThrow(ProviderConfigError)
  })

  durableChannelSuite(async () => {
    const server = await new SmtpServer().start()
    await mailbox(async (client) => {
      await client.mailboxOpen('INBOX')
      await client.messageFlagsAdd('1:*', ['\\Seen'])
    })
    return {
      channel: 'email',
      chatId: USER,
      provider: (): IProvider =>
        new EmailProvider({
          address: BOT,
          smtp: { host: '127.0.0.1', port: server.port, auth: { user: server.user, pass: server.pass } },
          imap: { host: '127.0.0.1', port: imap.port, auth: { user: imap.user, pass: imap.pass } },
          pollMs: 200,
          rateLimitRetryAfterMs: 1000,
          onError: () => undefined,
        }),
      inboundText: (_p, id, text) => delivered(`<${id}-${server.port}@example.test>`, text),
      inboundImage: (_p, id, bytes) =>
        delivered(`<${id}-${server.port}@example.test>`, '', { name: 'photo.jpg', type: 'image/jpeg', bytes }),
      eventId: (id) => `<${id}-${server.port}@example.test>`,
      sentTexts: () => server.texts(),
      sendTimes: () => server.attempts,
      rateLimitNext: () => server.refuseNext({ stage: 'data', code: 451, message: '4.7.1 rate limit exceeded, slow down' }),
      finalErrorNext: () => server.refuseNext({ stage: 'rcpt', code: 550, message: '5.1.1 mailbox unavailable' }),
      finalErrorCode: 'RECIPIENT_UNREACHABLE',
      secrets: [server.pass, imap.pass],
      stop: () => server.stop(),
    }
  })
})
