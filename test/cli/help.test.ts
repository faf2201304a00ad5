/**
 * Every command's --help, walked through the whole command tree: examples in each, the root's and
 * every group's included, and the global options each takes (--backend, --scope, -o/--json).
 */
import { PassThrough } from 'node:stream'
import type { Command } from 'commander'
import { describe, expect, it } from 'vitest'
import { Output } from '../../src/cli/output.js'
import { buildProgram } from '../../src/cli/program.js'
import { botmesh } from './helpers.js'

function program(): Command {
  const stream = () => Object.assign(new PassThrough(), { isTTY: false })
  const out = new Output({ stdout: stream(), stderr: stream(), stdin: stream() }, {})
  return buildProgram({ out, env: {}, stdin: stream(), signal: new AbortController().signal, version: 'test' })
}

/** Every command under `root`, with its path ("dlq list"). */
function walk(root: Command, path: string[] = []): [string, Command][] {
  return root.commands.flatMap((command) => {
    const here = [...path, command.name()]
    return [[here.join(' '), command] as [string, Command], ...walk(command, here)]
  })
}

/** A command's whole --help: commander's text and what was added after it. */
function helpOf(command: Command): string {
  let text = ''
  command.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: (chunk) => (text += chunk) })
  command.exitOverride()
  try {
    command.outputHelp()
  } catch {
    // outputHelp does not exit; exitOverride only guards against it.
  }
  return text
}

describe('--help', () => {
  const commands = walk(program())

  it('walks every command', () => {
    expect(commands.map(([name]) => name)).toEqual(
      expect.arrayContaining(['stats', 'dlq', 'dlq list', 'inbox', 'inbox list', 'inbox show', 'outbox', 'crash-matrix', 'verify']),
    )
  })

  it.each(commands.map(([name]) => name))('botmesh %s --help has examples and lists the global options', (name) => {
    const command = commands.find(([found]) => found === name)![1]
    const help = helpOf(command)
    expect(help).toMatch(/\nExamples:\n {2}\$ botmesh /)
    expect(help).toContain('Global Options:')
    for (const option of ['--backend <url>', '--scope <id>', '-o, --output <format>', '--json']) expect(help, option).toContain(option)
  })

  it('botmesh --help (the binary) has examples, and says -o and --json', async () => {
    const result = await botmesh(['--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/\nExamples:\n {2}\$ botmesh /)
    expect(result.stdout).toContain('-o, --output <format>')
  })
})
