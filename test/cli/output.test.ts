/**
 * How the CLI writes: exactly one JSON document on stdout with --json (messages on stderr), compact
 * tables with colour on a terminal, plain aligned columns off one, and no colour with NO_COLOR or
 * off a terminal.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { seedJournal } from '../fixtures/cli/seed.js'
import { botmesh, botmeshOnTerminal, COLOUR, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()
let url: string

beforeAll(async () => {
  url = `sqlite:${join(tempDir(), 'bot.db')}`
  await seedJournal(url)
})

describe.concurrent('output', () => {
  it('--json: one document on stdout, whatever the command; messages go to stderr', async () => {
    const commands = [
      ['scopes'],
      ['stats'],
      ['inbox', 'list'],
      ['outbox', 'list'],
      ['dlq', 'list'],
      ['show', 'in-dead-1'],
      ['leases'],
      ['instances'],
      ['verify'],
      ['replay', '--all-dead', '--dry-run'],
      ['purge', '--older-than', '1d', '--dry-run'],
    ]
    const runs = await Promise.all(commands.map((args) => botmesh([...args, '--json', '--backend', url])))
    for (const [index, run] of runs.entries()) {
      const name = commands[index]!.join(' ')
      expect(run.code, `${name}: ${run.stderr}`).toBe(0)
      expect(() => JSON.parse(run.stdout), name).not.toThrow()
      expect(run.stdout, name).not.toMatch(COLOUR)
    }
    expect(runs[9]!.stderr).toContain('replay 3 inbox record(s)')
  })

  it('off a terminal: plain columns, no borders, no colour, whole values', async () => {
    const result = await botmesh(['dlq', 'list', '--backend', url])
    expect(result.stdout).not.toMatch(COLOUR)
    expect(result.stdout).not.toMatch(/[┌│─]/)
    expect(result.stdout).toContain('UNSUPPORTED_CONTENT: unsupported content')
  })

  it('on a terminal: a compact table (no borders) with colour; NO_COLOR keeps the table and drops the colour', async () => {
    const coloured = await botmeshOnTerminal(['dlq', 'list', '--backend', url])
    expect(coloured.code).toBe(0)
    expect(coloured.stdout).not.toMatch(/[┌│─]/)
    expect(coloured.stdout).toMatch(/\x1b\[1mKIND\x1b\[22m +\x1b\[1mID\x1b\[22m/)
    expect(coloured.stdout).toMatch(COLOUR)
    const plain = await botmeshOnTerminal(['dlq', 'list', '--backend', url], { env: { NO_COLOR: '1' } })
    expect(plain.stdout).toMatch(/^KIND +ID +STATE/m)
    expect(plain.stdout).not.toMatch(COLOUR)
  })

  it('errors are one line on stderr, coloured only on a terminal', async () => {
    const piped = await botmesh(['show', 'ghost', '--backend', url])
    expect(piped.stderr).toBe('botmesh: no inbox or outbox record "ghost" (RECORD_NOT_FOUND)\n')
    const terminal = await botmeshOnTerminal(['show', 'ghost', '--backend', url])
    expect(terminal.stdout).toMatch(/\x1b\[31mbotmesh: no inbox or outbox record "ghost"/)
  })
})
