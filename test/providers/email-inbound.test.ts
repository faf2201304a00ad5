/**
 * What the email transport refuses of inbound mail (issue 41 item 7), against a real Dovecot
 * started by the test: a message over `messageBytesMax` (by the size the server reports, asked
 * before the fetch) and, with `authenticationResults` set, a message whose `From:` the receiving
 * server did not authenticate (`dmarc=pass` in its own `Authentication-Results`). A refused message
 * is flagged \Seen, journaled nowhere, and reported as its error class.
 */
import { ImapFlow } from 'imapflow'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { EmailProvider, type EmailProviderOptions } from '../../src/providers/email/index.js'
import { EmailNotAuthenticatedError, EmailTooLargeError } from '../../src/providers/email/inbound-checks.js'
import { waitFor } from '../../test-utils/wait.js'
import { ImapServer, dovecotAvailable, rawEmail } from './fixtures/mail-servers.js'
import { FAST, useBots } from './harness.js'

const BOT = 'bot@botmesh.test'
const USER = 'ana@example.test'
const MX = 'mx.botmesh.test'
const enabled = dovecotAvailable()
const bots = useBots()
let imap: ImapServer
beforeAll(async () => {
  if (enabled) imap = await new ImapServer().start()
}, 30_000)
afterAll(async () => {
  await imap?.stop()
})

/** A bot on the test's mailbox; it never sends, so its SMTP server is never dialled. */
async function emailBot(options: Partial<EmailProviderOptions>) {
  const errors: unknown[] = []
  const provider = new EmailProvider({
    address: BOT,
    smtp: { host: '127.0.0.1', port: 9, auth: { user: 'unused', pass: 'unused' } },
    imap: { host: '127.0.0.1', port: imap.port, auth: { user: imap.user, pass: imap.pass } },
    pollMs: 200,
    onError: (error) => errors.push(error),
    ...options,
  })
  const handled: string[] = []
  const bot = await bots.start({ provider, durability: { ...FAST, backend: new MemoryDurability() } }, (b) =>
    b.when(TEXT, async (ctx) => void handled.push(ctx.message.text!)),
  )
  return { bot, handled, errors }
}

async function deliverAll(raws: string[], messageIds: string[]): Promise<void> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port: imap.port,
    secure: false,
    auth: { user: imap.user, pass: imap.pass },
    logger: false,
  })
  await client.connect()
  try {
    for (const raw of raws) await client.append('INBOX', raw)
    await waitFor(
      async () => {
        await client.mailboxOpen('INBOX', { readOnly: true })
        const seen = await Promise.all(
          messageIds.map(async (id) => ((await client.search({ header: { 'message-id': id }, seen: true }, { uid: true })) || []).length),
        )
        return seen.every((count) => count > 0)
      },
      { timeoutMs: 20_000, message: 'every message to be flagged \\Seen' },
    )
  } finally {
    await client.logout()
  }
}

const mail = (id: string, text: string, headers: string[] = []) =>
  [...headers.map((h) => `${h}\r\n`), rawEmail({ from: USER, to: BOT, messageId: id, text })].join('')

describe.runIf(enabled)('EmailProvider: inbound checks', () => {
  it('a message over messageBytesMax is refused by its size, flagged \\Seen and journaled nowhere', async () => {
    const { bot, handled, errors } = await emailBot({ messageBytesMax: 2048 })
    await deliverAll(
      [mail('<big-1@example.test>', 'x'.repeat(4000)), mail('<small-1@example.test>', 'small')],
      ['<big-1@example.test>', '<small-1@example.test>'],
    )
    await bot.idle()
    expect(handled).toEqual(['small'])
    expect((await bot.durability!.inbox.list({})).length).toBe(1)
    const refused = errors.filter((e) => e instanceof EmailTooLargeError)
    expect(refused).toHaveLength(1)
    expect(refused[0]).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', bytesMax: 2048, retryable: false })
    expect((refused[0] as EmailTooLargeError).bytes).toBeGreaterThan(4000)
  }, 40_000)

  it('with authenticationResults, only mail its server says passed DMARC for the From: domain is taken', async () => {
    const { bot, handled, errors } = await emailBot({ authenticationResults: { authservId: MX } })
    const pass = `Authentication-Results: ${MX};\r\n spf=pass smtp.mailfrom=example.test;\r\n dmarc=pass (p=reject) header.from=example.test`
    const cases: [string, string[]][] = [
      ['none', []],
      ['other server', ['Authentication-Results: evil.example; dmarc=pass header.from=example.test']],
      ['failed', [`Authentication-Results: ${MX}; dmarc=fail header.from=example.test`]],
      ['other domain', [`Authentication-Results: ${MX}; dmarc=pass header.from=other.test`]],
      ['ours failed, a pass below', [`Authentication-Results: ${MX}; dmarc=fail header.from=example.test`, pass]],
      ['passed', [pass]],
    ]
    const ids = cases.map((_, i) => `<dmarc-${i}@example.test>`)
    await deliverAll(
      cases.map(([text, headers], i) => mail(ids[i]!, text, headers)),
      ids,
    )
    await bot.idle()
    expect(handled).toEqual(['passed'])
    expect((await bot.durability!.inbox.list({})).length).toBe(1)
    const refused = errors.filter((e) => e instanceof EmailNotAuthenticatedError)
    expect(refused).toHaveLength(5)
    expect(refused[0]).toMatchObject({ code: 'CHANNEL_REJECTED', retryable: false })
  }, 40_000)
})
