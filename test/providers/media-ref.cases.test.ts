/**
 * The seed's table, row by row, with named examples: what each channel journals, the options that
 * change it (`durableMedia.viewOnce`, `mediaRefHosts`, Twilio's API origin), and the refusals the
 * issue names (lookalike hosts, userinfo tricks, downgrades, IP literals, `localhost`).
 */
import { describe, expect, it } from 'vitest'
import type { MediaRef, StoredMediaRef } from '../../src/core/provider/provider.js'
import { baileysMediaRefCodec } from '../../src/providers/baileys/index.js'
import { discordMediaRefCodec } from '../../src/providers/discord/index.js'
import { emailMediaRefCodec } from '../../src/providers/email/index.js'
import { gupshupMediaRefCodec } from '../../src/providers/gupshup/index.js'
import { messengerMediaRefCodec } from '../../src/providers/messenger/index.js'
import { checkOf, type MediaRefCodec } from '../../src/providers/shared/codec.js'
import { ProviderConfigError } from '../../src/providers/shared/errors.js'
import { tiktokMediaRefCodec } from '../../src/providers/tiktok/index.js'
import { twilioMediaRefCodec } from '../../src/providers/twilio/index.js'

const image = (token: unknown): MediaRef => ({ type: 'image', token })
/** A stored `{ url }` with a valid check, as an attacker who knows the format would write it. */
const forged = (channel: string, url: string): StoredMediaRef => ({ v: 1, data: { url, check: checkOf(channel, { url }) } })
const accepts = (codec: MediaRefCodec, stored: StoredMediaRef) => expect(() => codec.rehydrate(stored, image(undefined))).not.toThrow()
const refuses = (codec: MediaRefCodec, stored: StoredMediaRef) =>
  expect(() => codec.rehydrate(stored, image(undefined)), JSON.stringify(stored.data)).toThrow(
    expect.objectContaining({ code: 'MEDIA_REF_INVALID' }),
  )

const KEY = Buffer.alloc(32, 7)
const baileysImage = (extra: Record<string, unknown> = {}) => ({
  key: { remoteJid: '5511999999999@s.whatsapp.net', fromMe: false, id: '3EB0C767D097B7C7C4E5' },
  message: {
    imageMessage: {
      url: 'https://mmg.whatsapp.net/v/t62/a.enc',
      directPath: '/v/t62/a.enc',
      mediaKey: KEY,
      fileSha256: KEY,
      fileEncSha256: KEY,
      mimetype: 'image/jpeg',
      jpegThumbnail: Buffer.from('thumb'),
      caption: 'hello',
      contextInfo: { quotedMessage: { conversation: 'quoted' } },
      ...extra,
    },
  },
})

describe('Baileys', () => {
  it('journals the media content and the message key, without thumbnail, caption or quoted context', () => {
    const stored = baileysMediaRefCodec().serialize(image(baileysImage()))!
    const { check: _check, ...data } = stored.data as Record<string, unknown>
    expect(data).toEqual({
      key: { remoteJid: '5511999999999@s.whatsapp.net', fromMe: false, id: '3EB0C767D097B7C7C4E5' },
      kind: 'imageMessage',
      url: 'https://mmg.whatsapp.net/v/t62/a.enc',
      directPath: '/v/t62/a.enc',
      mediaKey: KEY.toString('base64'),
      fileSha256: KEY.toString('base64'),
      fileEncSha256: KEY.toString('base64'),
      mimetype: 'image/jpeg',
    })
  })

  it('does not journal view-once media unless durableMedia: { viewOnce: true }', () => {
    const flagged = image(baileysImage({ viewOnce: true }))
    const wrapped = image({ key: baileysImage().key, message: { viewOnceMessageV2: { message: baileysImage().message } } })
    for (const media of [flagged, wrapped]) {
      expect(baileysMediaRefCodec().serialize(media)).toBeUndefined()
      expect(baileysMediaRefCodec({ durableMedia: { viewOnce: false } }).serialize(media)).toBeUndefined()
      const stored = baileysMediaRefCodec({ durableMedia: { viewOnce: true } }).serialize(media)!
      expect(baileysMediaRefCodec().rehydrate(stored, media).token.message.imageMessage!.mediaKey).toEqual(KEY)
    }
  })

  it('a message without media, or without a key, is not journaled (the live message still runs)', () => {
    expect(baileysMediaRefCodec().serialize(image({ key: baileysImage().key, message: { conversation: 'hi' } }))).toBeUndefined()
    expect(baileysMediaRefCodec().serialize(image({ message: baileysImage().message }))).toBeUndefined()
    expect(baileysMediaRefCodec().serialize(image(null))).toBeUndefined()
  })
})

describe('Messenger and Instagram: Meta CDN hosts', () => {
  const codec = messengerMediaRefCodec()
  it('accepts the CDNs and their subdomains', () => {
    for (const url of [
      'https://fbcdn.net/a.jpg',
      'https://scontent.xx.fbcdn.net/v/a.jpg?oh=1&oe=2',
      'https://cdn.fbsbx.com/a',
      'https://scontent.cdninstagram.com/a',
    ])
      accepts(codec, forged('messenger', url))
  })
  it('refuses lookalikes, userinfo tricks, downgrades, IP literals, localhost, other ports, credentials', () => {
    for (const url of [
      'https://fbcdn.net.evil.com/a.jpg',
      'https://evilfbcdn.net/a.jpg',
      'https://fbcdn.net@evil.com/a.jpg',
      'https://user:pw@scontent.fbcdn.net/a.jpg',
      'http://scontent.fbcdn.net/a.jpg',
      'https://127.0.0.1/a.jpg',
      'https://[::1]/a.jpg',
      'https://2130706433/a.jpg',
      'https://localhost/a.jpg',
      'https://fbcdn.net:8443/a.jpg',
      'https://fbcdn.net./a.jpg',
      'https://FBCDN.NET/a.jpg',
      'https://scontent.fbcdn.net/a.jpg?access_token=x',
      'file:///etc/passwd',
    ])
      refuses(codec, forged('messenger', url))
  })
  it('does not journal a URL it would refuse, and cuts credentials before journaling', () => {
    expect(codec.serialize(image({ url: 'https://evil.com/a.jpg' }))).toBeUndefined()
    expect(codec.serialize(image({ url: 'https://u:p@cdn.fbsbx.com/a?access_token=t&oh=1' }))!.data).toMatchObject({
      url: 'https://cdn.fbsbx.com/a?oh=1',
    })
  })
  it('`mediaRefHosts` replaces the list', () => {
    const own = messengerMediaRefCodec({ mediaRefHosts: ['media.example.com'] })
    accepts(own, forged('messenger', 'https://cdn.media.example.com/a'))
    refuses(own, forged('messenger', 'https://scontent.fbcdn.net/a'))
    expect(() => messengerMediaRefCodec({ mediaRefHosts: [] })).toThrow(ProviderConfigError)
    expect(() => messengerMediaRefCodec({ mediaRefHosts: ['https://x.com'] })).toThrow(ProviderConfigError)
  })
})

describe('Discord', () => {
  it('accepts discordapp.com and discordapp.net; mediaRefHosts replaces them', () => {
    accepts(discordMediaRefCodec(), forged('discord', 'https://cdn.discordapp.com/attachments/1/2/a.png?ex=1&is=2&hm=3'))
    accepts(discordMediaRefCodec(), forged('discord', 'https://media.discordapp.net/attachments/1/2/a.png'))
    refuses(discordMediaRefCodec(), forged('discord', 'https://cdn.discordapp.com.evil.com/a.png'))
    refuses(discordMediaRefCodec(), forged('discord', 'https://cdn.discord.com/a.png'))
    accepts(discordMediaRefCodec({ mediaRefHosts: ['discord.com'] }), forged('discord', 'https://cdn.discord.com/a.png'))
  })
})

describe('Twilio', () => {
  it('accepts https on the API origin or a twilio.com host only', () => {
    accepts(twilioMediaRefCodec(), forged('twilio', 'https://api.twilio.com/2010-04-01/Accounts/AC1/Messages/MM1/Media/ME1'))
    accepts(twilioMediaRefCodec(), forged('twilio', 'https://media.twilio.com/ME1'))
    for (const url of [
      'http://api.twilio.com/ME1',
      'https://twilio.com.evil.com/ME1',
      'https://api.twilio.com@evil.com/ME1',
      'https://api.twilio.com:444/ME1',
    ])
      refuses(twilioMediaRefCodec(), forged('twilio', url))
  })
  it('a configured API origin is accepted as it is (a regional or test origin)', () => {
    const codec = twilioMediaRefCodec({ apiOrigin: 'https://api.dublin.ie1.example.net' })
    accepts(codec, forged('twilio', 'https://api.dublin.ie1.example.net/ME1'))
    refuses(codec, forged('twilio', 'https://api.dublin.ie1.example.net:8443/ME1'))
  })
})

describe('Gupshup and GoHighLevel: any hosted http(s) URL, never a private one', () => {
  it('accepts http and https on public hosts; refuses IP literals, localhost, private names, userinfo', () => {
    accepts(gupshupMediaRefCodec(), forged('gupshup', 'https://filemanager.gupshup.io/wa/1/media/2'))
    accepts(gupshupMediaRefCodec(), forged('gupshup', 'http://media.example.com/a.jpg'))
    for (const url of [
      'http://10.0.0.1/a',
      'https://[fd00::1]/a',
      'http://localhost:8080/a',
      'http://metadata.internal/a',
      'http://intranet/a',
      'https://u:p@media.example.com/a',
      'ftp://media.example.com/a',
    ])
      refuses(gupshupMediaRefCodec(), forged('gupshup', url))
  })
  it('with mediaRefHosts, only those hosts', () => {
    const codec = gupshupMediaRefCodec({ mediaRefHosts: ['gupshup.io'] })
    accepts(codec, forged('gupshup', 'https://filemanager.gupshup.io/a'))
    refuses(codec, forged('gupshup', 'https://gupshup.io.evil.com/a'))
  })
})

describe('email', () => {
  it('journals Message-ID, attachment index and digest, plus the IMAP UID with its UIDVALIDITY', () => {
    const codec = emailMediaRefCodec()
    const content = Buffer.from('%PDF-1.7')
    const digest = '3f3c0d1b1d1b9b1c1b4f1e1e0c6c3f0e1b7d2d8a1f7e2c3b4a5d6e7f8a9b0c1d'
    expect(
      codec.serialize({ type: 'document', token: { messageId: '<a@b.c>', index: 1, content, uid: 7, uidValidity: 9, password: 'pw' } })!
        .data,
    ).toMatchObject({ messageId: '<a@b.c>', index: 1, uid: 7, uidValidity: 9 })
    // A UID without its UIDVALIDITY is meaningless: neither is journaled.
    expect(codec.serialize({ type: 'document', token: { messageId: '<a@b.c>', index: 1, digest, uid: 7 } })!.data).not.toHaveProperty('uid')
    expect(codec.serialize({ type: 'document', token: { messageId: '<a@b.c>', index: 1 } })).toBeUndefined()
  })
})

describe('TikTok', () => {
  it('journals media coordinates, or a sticker URL on a TikTok CDN', () => {
    const codec = tiktokMediaRefCodec()
    expect(codec.serialize(image({ conversationId: 'c1', messageId: 'm1', mediaId: 'v1', accessToken: 'act.x' }))!.data).toMatchObject({
      kind: 'media',
      conversationId: 'c1',
      messageId: 'm1',
      mediaId: 'v1',
    })
    expect(codec.serialize(image({ stickerUrl: 'https://p16.tiktokcdn.com/s.png' }))!.data).toMatchObject({
      kind: 'sticker',
      url: 'https://p16.tiktokcdn.com/s.png',
    })
    expect(codec.serialize(image({ stickerUrl: 'https://evil.com/s.png' }))).toBeUndefined()
  })
})
