/**
 * The CLI's usage: --help with examples on every command, the exit codes of bad usage, every kind
 * of bad backend URL (one line on stderr, exit 2, nothing touched), where the backend URL comes
 * from (flag > BOTMESH_BACKEND > default), and passwords never shown.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import stringWidth from 'string-width'
import { botmesh, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()

/** Every command and subcommand this CLI owns (docs/cli.md). */
const COMMANDS = [
  ['scopes'],
  ['stats'],
  ['inbox', 'list'],
  ['inbox', 'show'],
  ['outbox', 'list'],
  ['outbox', 'show'],
  ['dlq', 'list'],
  ['show'],
  ['replay'],
  ['retry'],
  ['discard'],
  ['purge'],
  ['leases'],
  ['instances'],
  ['verify'],
  ['doctor'],
  ['compact'],
  ['export'],
  ['import'],
  ['conformance'],
  ['crash-matrix'],
  ['bench'],
]

describe('botmesh --help', () => {
  it('lists every command, the backend URLs and the exit codes', async () => {
    const result = await botmesh(['--help'])
    expect(result.code).toBe(0)
    for (const [name] of COMMANDS) expect(result.stdout).toContain(`\n  ${name!}`)
    expect(result.stdout).toContain('redis+cluster://')
    expect(result.stdout).toContain('Exit codes: 0 done, 1 failed, 2 bad usage or input')
    // Wrapped for an 80-column terminal, the backend URLs' descriptions under each other.
    for (const line of result.stdout.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(80)
    expect(result.stdout).toMatch(/^ {2}redis\+cluster:\/\/\S+\n {38}RedisDurability on a Redis Cluster$/m)
  })

  it('gives every command its own help with examples', async () => {
    const helps = await Promise.all(COMMANDS.map((command) => botmesh([...command, '--help'])))
    for (const [index, result] of helps.entries()) {
      const name = COMMANDS[index]!.join(' ')
      expect(result.code, name).toBe(0)
      expect(result.stdout, name).toContain(`Usage: botmesh ${name}`)
      expect(result.stdout, name).toMatch(/Examples:\n {2}\$ botmesh /)
      for (const line of result.stdout.split('\n').filter((l) => !l.startsWith('  $ ')))
        expect(stringWidth(line), `${name}: ${line}`).toBeLessThanOrEqual(80)
    }
  })

  it('prints the version', async () => {
    const result = await botmesh(['--version'])
    expect(result.code).toBe(0)
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
  })
})

describe.concurrent('bad usage exits 2', () => {
  it.each([
    [['nope'], /unknown command 'nope'/],
    [['stats', '--bogus'], /unknown option '--bogus'/],
    [['dlq'], /Usage: botmesh dlq/],
    [['dlq', 'list', '--kind', 'both', '--backend', 'memory'], /--kind must be one of inbox, outbox; got "both" \(USAGE\)/],
    [['inbox', 'list', '--limit', '0', '--backend', 'memory'], /--limit must be a whole number from 1/],
    [['inbox', 'list', '--state', 'sideways', '--backend', 'memory'], /no such state for inbox: sideways/],
    [['purge', '--backend', 'memory'], /purge needs --older-than/],
    [['purge', '--older-than', 'soon', '--backend', 'memory'], /--older-than must be a duration/],
    [['replay', '--backend', 'memory'], /name at least one id, or use a bulk form/],
    [['replay', 'a', '--all-dead', '--backend', 'memory'], /not both/],
    [['scopes', '--scope', 'a', '--bot', 'b'], /either --scope or --bot/],
    [['crash-matrix', '--backend', 'memory', '--policy', 'never'], /--policy must be one of skip, resend, both/],
    [['conformance'], /conformance needs --backend/],
  ])('%j', async (args, message) => {
    const result = await botmesh(args)
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(message)
  })
})

describe.concurrent('bad backend URLs: one clear line, exit 2, nothing touched', () => {
  it.each([
    ['foo://somewhere', /unknown backend scheme "foo:" .*BACKEND_SCHEME_UNKNOWN/],
    ['./data/durable.json', /is not a backend URL \(did you mean file:\.\/data\/durable\.json\?\)/],
    ['redis://host:notaport', /not a valid Redis URL.*BACKEND_URL_INVALID/],
    ['redis://127.0.0.1:6379/abc', /the database must be a number/],
    ['redis+cluster://', /names no cluster nodes/],
    ['redis+sentinel://s1:26379', /names no master.*BACKEND_URL_INVALID/],
    ['redis+sentinel://s1:notaport/primary', /bad sentinel "s1:notaport"/],
    ['redis+sentinel://s1/primary/x', /only a database number may follow/],
    ['redis+sentinel://s1/primary?caFile=/ca.pem', /TLS settings need rediss\+sentinel:\/\//],
    ['redis+sentinel://s1/primary?sentinelPasword=x', /unknown parameter "sentinelPasword"/],
    ['postgres://', /names no host/],
    ['postgres://u@h/db?tablePrefix=bad-prefix', /tablePrefix must be letters, digits and underscores/],
    ['sqlite:', /names no file/],
    ['events:', /names no file; expected events:<path>/],
  ])('%s', async (url, message) => {
    const result = await botmesh(['stats', '--backend', url])
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toMatch(message)
    expect(result.stdout).toBe('')
  })

  it('never shows a password, in an error of the URL or of the server', async () => {
    const runs = await Promise.all([
      botmesh(['stats', '--backend', 'redis://user:hunter2secret@127.0.0.1:1/0x']),
      botmesh(['stats', '--backend', 'postgres://postgres:hunter2secret@127.0.0.1:1/test']),
      botmesh(['stats', '--backend', 'postgres://u:hunter2secret@h:99999/x?tablePrefix=bad-one']),
      botmesh(['stats', '--backend', 'redis://:hunter2secret@127.0.0.1:1', '--json']),
    ])
    for (const run of runs) {
      expect(run.code).toBe(2)
      expect(run.stderr + run.stdout).not.toContain('hunter2secret')
      expect(run.stderr).toContain('***')
    }
  })

  it('hides all of a password that holds a raw @ (the user-info ends at the last @), in the table and --json', async () => {
    const runs = await Promise.all([
      botmesh(['stats', '--backend', 'redis://bot:S3cr@tPass@127.0.0.1:1']),
      botmesh(['stats', '--backend', 'redis://bot:S3cr@tPass@127.0.0.1:1', '--json']),
      botmesh(['stats', '--backend', 'postgres://bot:S3cr@tPass@127.0.0.1:1/test']),
      botmesh(['stats', '--backend', 'postgres://bot:S3cr@tPass@127.0.0.1:1/test', '--json']),
      botmesh(['stats', '--backend', 'redis://bot:S3cr@tPass@127.0.0.1:1/0x']),
    ])
    for (const run of runs) {
      expect(run.code).toBe(2)
      expect(run.stderr + run.stdout).not.toMatch(/S3cr|tPass/)
      expect(run.stderr).toContain('bot:***@127.0.0.1:1')
    }
  })
})

describe.concurrent('where the backend comes from', () => {
  it('defaults to sqlite:./data/bot.db, and a missing default journal is bad input that creates nothing', async () => {
    const cwd = tempDir()
    const result = await botmesh(['stats'], { cwd })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/\.\/data\/bot\.db does not exist.*JOURNAL_MISSING/)
    expect(existsSync(join(cwd, 'data'))).toBe(false)
  })

  it('takes BOTMESH_BACKEND over the default, and --backend over both', async () => {
    const cwd = tempDir()
    const fromEnv = await botmesh(['stats'], { cwd, env: { BOTMESH_BACKEND: 'sqlite:./from-env.db' } })
    expect(fromEnv.stderr).toContain('./from-env.db does not exist')
    const fromFlag = await botmesh(['stats', '--backend', 'sqlite:./from-flag.db'], {
      cwd,
      env: { BOTMESH_BACKEND: 'sqlite:./from-env.db' },
    })
    expect(fromFlag.stderr).toContain('./from-flag.db does not exist')
    const bare = await botmesh(['scopes', '--json'], { cwd, env: { BOTMESH_BACKEND: 'memory' } })
    expect(bare.code).toBe(0)
    expect(JSON.parse(bare.stdout)).toEqual({ backend: 'memory', scopes: [] })
  })

  it('accepts global flags before or after the command', async () => {
    const before = await botmesh(['--backend', 'memory', '--json', 'scopes'])
    const after = await botmesh(['scopes', '--json', '--backend', 'memory'])
    expect(before.code).toBe(0)
    expect(JSON.parse(before.stdout)).toEqual(JSON.parse(after.stdout))
  })
})
