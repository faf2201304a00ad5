/**
 * The package's public paths: every `exports` entry of package.json has its tsup entry, a build
 * produces each file it names, and the drivers load only when their provider is used: importing
 * `botmesh/core` (or the Telegram provider's module) never loads grammY, and `botmesh/telegram` loads
 * neither grammY nor better-sqlite3 until its bot starts.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { PROVIDER_CHANNELS } from '../../src/providers/channels.js'

const ROOT = join(import.meta.dirname, '..', '..')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, { types: string; import: string }>
  peerDependenciesMeta: Record<string, { optional?: boolean }>
}
// Inside the repository, so the built files resolve their external drivers from node_modules.
mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true })
const out = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'botmesh-build-'))
afterAll(() => rmSync(out, { recursive: true, force: true }))

/** The tsup entries (`dist` name → source file), as tsup.config.ts computes them. */
async function tsupEntries(): Promise<Record<string, string>> {
  const config = (await import('../../tsup.config.js')).default as { entry: Record<string, string> }
  return config.entry
}

describe('package exports', () => {
  it('every channel has its botmesh/providers/<channel> export', () => {
    for (const channel of PROVIDER_CHANNELS)
      expect(pkg.exports[`./providers/${channel}`], channel).toEqual({
        types: `./dist/providers/${channel}/index.d.ts`,
        import: `./dist/providers/${channel}/index.js`,
      })
  })

  it('every exports entry has its tsup entry, and its types beside its code', async () => {
    const entries = await tsupEntries()
    for (const [path, target] of Object.entries(pkg.exports)) {
      const name = target.import.replace(/^\.\/dist\//, '').replace(/\.js$/, '')
      expect(entries[name], `${path} → ${target.import} has no tsup entry`).toBeDefined()
      expect(existsSync(join(ROOT, entries[name]!)), `${entries[name]} is missing`).toBe(true)
      expect(target.types).toBe(target.import.replace(/\.js$/, '.d.ts'))
    }
  })

  it('a build produces every file the exports name; importing botmesh/core, botmesh/telegram or a provider does not load its client (grammY, better-sqlite3, twilio, @discordjs)', async () => {
    const { build } = await import('tsup')
    const config = (await import('../../tsup.config.js')).default as Record<string, unknown>
    // The declarations are the release build's (npm run build); their entries are the same as the code's.
    await build({ ...config, outDir: out, dts: false, sourcemap: false, silent: true })
    for (const target of Object.values(pkg.exports))
      expect(existsSync(join(out, target.import.replace(/^\.\/dist\//, ''))), target.import).toBe(true)
    const script = `
      import { createRequire } from 'node:module'
      const loaded = (name = 'grammy') => Object.keys(createRequire(import.meta.url).cache).some((p) => p.includes('/node_modules/' + name + '/'))
      await import(${JSON.stringify(join(out, 'index.js'))})
      const afterCore = loaded()
      const { Bot, SQLiteStore, TelegramProvider: EntryProvider, journaledIn } = await import(${JSON.stringify(join(out, 'telegram.js'))})
      new Bot({ provider: new EntryProvider({ token: '1:abc' }), ...journaledIn(new SQLiteStore({ file: ${JSON.stringify(join(out, 'bot.db'))} })) })
      const afterTelegramEntry = loaded() || loaded('better-sqlite3')
      const { TelegramProvider } = await import(${JSON.stringify(join(out, 'providers/telegram/index.js'))})
      new TelegramProvider({ token: '1:abc' })
      const afterImport = loaded()
      await new TelegramProvider({ token: '1:abc', apiRoot: 'http://127.0.0.1:9' }).send('1', 'x').catch(() => {})
      const { TwilioProvider } = await import(${JSON.stringify(join(out, 'providers/twilio/index.js'))})
      const twilio = new TwilioProvider({ accountSid: 'AC' + '0'.repeat(32), authToken: 't', from: '+1', webhook: { port: 0, publicUrl: 'https://x.example/t' }, apiOrigin: 'http://127.0.0.1:9' })
      const twilioAfterImport = loaded('twilio')
      await twilio.send('+2', 'x').catch(() => {})
      const { DiscordProvider } = await import(${JSON.stringify(join(out, 'providers/discord/index.js'))})
      const discord = new DiscordProvider({ token: 't', apiRoot: 'http://127.0.0.1:9/api', requestTimeoutMs: 500 })
      // @discordjs/rest loads as ESM (not in the require cache); its CommonJS dependency shows it.
      const discordAfterImport = loaded('discord-api-types')
      await discord.send('1', 'x').catch(() => {})
      console.log(JSON.stringify({ afterCore, afterTelegramEntry, afterImport, afterSend: loaded(), twilioAfterImport, twilioAfterSend: loaded('twilio'), discordAfterImport, discordAfterSend: loaded('discord-api-types') }))`
    const result = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').at(-1)!,
    )
    expect(result).toEqual({
      afterCore: false,
      afterTelegramEntry: false,
      afterImport: false,
      afterSend: true,
      twilioAfterImport: false,
      twilioAfterSend: true,
      discordAfterImport: false,
      discordAfterSend: true,
    })
    // grammY is an optional peer: a user of another channel never installs it.
    expect(pkg.peerDependenciesMeta.grammy).toEqual({ optional: true })
  }, 180_000)
})
