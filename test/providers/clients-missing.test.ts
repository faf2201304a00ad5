/**
 * A channel client that is not installed: every provider with a client package (grammY, twilio,
 * @discordjs/rest, nodemailer/imapflow/mailparser, baileys) imports and constructs without it, and
 * its first start or send fails with DRIVER_MISSING (final), one line naming the package and the
 * command that installs it, as a missing backend driver does. A package that is there but fails
 * to load is not called missing.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { loadDriver } from '../../src/providers/shared/driver.js'

const run = promisify(execFile)
const notFound = (message: string) => Object.assign(new Error(message), { code: 'ERR_MODULE_NOT_FOUND' })
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => ({ loaded: true }),
    (error: { code?: string; retryable?: boolean; message: string }) => ({
      code: error.code,
      retryable: error.retryable,
      message: error.message,
    }),
  )

describe('channel clients not installed', () => {
  it('each provider constructs without its client, and its first start or send names the package to install', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        './test-utils/ts-loader.mjs',
        '--import',
        './test/fixtures/providers/hide-clients.mjs',
        'test/fixtures/providers/start-without-clients.ts',
      ],
      { cwd: process.cwd(), timeout: 60_000 },
    )
    const outcomes = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<
      string,
      { code?: string; retryable?: boolean; message?: string }
    >
    const install = {
      telegram: 'grammy',
      twilio: 'twilio',
      discord: '@discordjs/rest',
      email: 'nodemailer',
      baileys: 'baileys@^7.0.0-rc14',
    }
    expect(Object.keys(outcomes)).toEqual(Object.keys(install))
    for (const [channel, command] of Object.entries(install)) {
      expect(outcomes[channel], channel).toMatchObject({ code: 'DRIVER_MISSING', retryable: false })
      expect(outcomes[channel]!.message, channel).toContain(`run npm install ${command}`)
      expect(outcomes[channel]!.message, channel).not.toContain('\n')
    }
  }, 90_000)

  it('a package that is there but fails to load, or misses a dependency of its own, is not called missing', async () => {
    const ownDependency = notFound("Cannot find package 'libsignal' imported from /app/node_modules/baileys/lib/index.js")
    expect(await outcome(loadDriver('baileys', 'baileys', () => Promise.reject(ownDependency), '^7.0.0-rc14'))).toEqual({
      code: 'PROVIDER_CONFIG_INVALID',
      retryable: false,
      message: expect.stringContaining(
        "baileys: the baileys package could not be loaded (npm install baileys@^7.0.0-rc14): Cannot find package 'libsignal'",
      ),
    })
    expect(await outcome(loadDriver('twilio', 'twilio', () => Promise.reject(new SyntaxError('Unexpected token'))))).toMatchObject({
      code: 'PROVIDER_CONFIG_INVALID',
      message: expect.stringContaining('Unexpected token'),
    })
    expect(
      await outcome(loadDriver('twilio', 'twilio', () => Promise.reject(notFound("Cannot find package 'twilio' imported from /app/x.js")))),
    ).toMatchObject({
      code: 'DRIVER_MISSING',
    })
    expect(await outcome(loadDriver('twilio', 'twilio', () => Promise.resolve({})))).toEqual({ loaded: true })
  })
})
