/**
 * A backend URL's password is hidden whole, whatever it holds: the user-info ends at the LAST `@`,
 * as the URL parser and the drivers read it (`redis://bot:S3cr@tPass@host`), issue 41.
 */
import { describe, expect, it } from 'vitest'
import { parseBackendUrl, redactBackendUrl, scrubSecrets } from '../../src/operator/gateway/open.js'
import { secretsOf } from '../../src/operator/gateway/backend-url.js'

describe('backend URL redaction', () => {
  it.each([
    ['redis://bot:S3cr@tPass@cache:6379/0?prefix=p', 'redis://bot:***@cache:6379/0?prefix=p'],
    ['rediss://:S3cr@tPass@cache:6379', 'rediss://:***@cache:6379'],
    ['redis+cluster://bot:S3cr@t@Pass@h1:1,h2:2?prefix=p', 'redis+cluster://bot:***@h1:1,h2:2?prefix=p'],
    [
      'redis+sentinel://bot:S3cr@tPass@s1:26379,s2:26380/primary?sentinelPassword=Sent1nel&prefix=p',
      'redis+sentinel://bot:***@s1:26379,s2:26380/primary?sentinelPassword=***&prefix=p',
    ],
    ['postgres://bot:S3cr@tPass@db.internal:5432/bots?tablePrefix=bm_', 'postgres://bot:***@db.internal:5432/bots?tablePrefix=bm_'],
    ['postgresql://bot:a:b@c@db/bots', 'postgresql://bot:***@db/bots'],
    ['postgres://bot:plain@db/bots', 'postgres://bot:***@db/bots'],
    ['postgres://bot@db/bots?x=a@b', 'postgres://bot@db/bots?x=a@b'],
    ['redis://cache:6379/0', 'redis://cache:6379/0'],
    ['postgres://db/bots?password=S3cr@t', 'postgres://db/bots?password=***'],
  ])('%s shows as %s', (url, shown) => {
    expect(redactBackendUrl(url)).toBe(shown)
    expect(parseBackendUrl(url).label).toBe(shown)
  })

  it('scrubs the whole password from any text, raw, as the URL parser writes it, and decoded', () => {
    const url = 'redis://bot:S3cr@tPass@cache:6379'
    const secrets = secretsOf(url)
    expect(secrets).toEqual(expect.arrayContaining(['S3cr@tPass', 'S3cr%40tPass']))
    const said = `AUTH failed for bot with S3cr@tPass at ${new URL(url).href}`
    expect(scrubSecrets(said, secrets)).not.toMatch(/S3cr|tPass/)
    expect(secretsOf('postgres://bot:p%40ss@db/x')).toEqual(expect.arrayContaining(['p%40ss', 'p@ss']))
  })
})
