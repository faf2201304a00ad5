// Output you can copy (issue 44): a command the CLI prints is never hard-wrapped, and prose wraps
// between words only, so a path or an id is never split across lines at 80 columns.
import { describe, expect, it } from 'vitest'
import { renderBlock, type Canvas } from '../../src/cli/render.js'
import { errorGroupsView } from '../../src/cli/views/error-groups.js'
import { botmesh, botmeshOnTerminal, useTempDirs } from './helpers.js'

const at = (width: number): Canvas => ({ terminal: true, width, paint: (text) => text, scrub: (text) => text })
const REPLAY = 'npx botmesh replay demo-channel:grace:demo.grace.9 --backend sqlite:./data/bot-2.db'

describe('output you can copy', () => {
  it('a command is printed whole: indented when it fits, else on a line of its own from column 0', () => {
    expect(renderBlock({ command: 'npx botmesh stats', indent: 2 }, at(80))).toBe('  npx botmesh stats\n')
    expect(REPLAY.length).toBeGreaterThan(78)
    expect(renderBlock({ command: REPLAY, indent: 2 }, at(80))).toBe(`${REPLAY}\n`)
    expect(renderBlock({ command: REPLAY, indent: 2 }, at(40))).toBe(`${REPLAY}\n`)
    // Off a terminal nothing wraps.
    expect(renderBlock({ command: REPLAY, indent: 2 }, { ...at(10), terminal: false })).toBe(`  ${REPLAY}\n`)
  })

  it('prose wraps between words, never inside one: a path wider than the terminal goes whole on its own line', () => {
    const path = `./data/${'deep/'.repeat(14)}bot-2.db`
    const lines = renderBlock({ text: `kept as it is; this demo journals to ${path}` }, at(40))
      .trimEnd()
      .split('\n')
    expect(lines).toContain(path)
    expect(lines.filter((line) => line !== path).every((line) => line.length <= 40)).toBe(true)
  })

  it('dlq list --group-by error at 80 columns: the group and the code whole, the commands next on lines of their own', () => {
    const now = 1_700_000_000_000
    const group = (n: number, code: string) => ({
      group: `g${n}a7c3e9`,
      kind: 'outbox' as const,
      code: code as never,
      shape: 'the recipient <id> cannot be reached on this channel after <n> tries',
      count: 10 - n,
      firstSeenAt: now - 3_600_000,
      lastSeenAt: now - 60_000,
      sample: { id: `out:default/default/demo/default:demo-channel:grace:reply-${n}-with-a-long-key`, message: 'x' },
    })
    const groups = [group(1, 'RECIPIENT_UNREACHABLE'), group(2, 'UNSUPPORTED_CONTENT')]
    const text = errorGroupsView(
      now,
      true,
    )({ groups, scanned: 9, scanLimited: false })
      .map((block) => renderBlock(block, at(80)))
      .join('')
    const lines = text.trimEnd().split('\n')
    // Only a command wider than the terminal is, whole, on a line of its own.
    expect(lines.filter((line) => line.length > 80)).toEqual([`botmesh show ${groups[0]!.sample.id}`])
    expect(text).toMatch(/g1a7c3e9\s+outbox\s+9\s+RECIPIENT_UNREACHABLE\s/)
    expect(text).toMatch(/g2a7c3e9\s+outbox\s+8\s+UNSUPPORTED_CONTENT\s/)
    expect(lines).toContain('  botmesh retry --all-dead --error-code RECIPIENT_UNREACHABLE --dry-run')
  })

  const tempDir = useTempDirs()
  it('botmesh demo at 80 columns: the kept-journal note once, each "Try next" command whole on one line', async () => {
    const cwd = tempDir()
    const demo = ['demo', '--no-dashboard', '--crash-after', '1500']
    expect((await botmesh(demo, { cwd, timeoutMs: 120_000 })).code).toBe(0)
    const again = await botmeshOnTerminal(demo, { cwd, input: 'n\n', columns: 80, timeoutMs: 120_000 })
    expect(again.code, again.stdout).toBe(0)
    const lines = again.stdout.split(/\r?\n/)
    expect(lines.filter((line) => line.includes('kept as it is'))).toHaveLength(1)
    const hints = lines.slice(lines.indexOf('Try next:') + 1).filter((line) => line.trim() !== '')
    expect(hints.length).toBeGreaterThanOrEqual(3)
    for (const hint of hints) expect(hint.trim()).toMatch(/^npx botmesh \S+ .*--backend sqlite:\.\/data\/bot-2\.db$/)
    expect(hints.map((line) => line.trim())).toContain(REPLAY)
  }, 300_000)
})
