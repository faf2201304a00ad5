/**
 * `npm run demo` (issue 44): the build before the demo says what it does and how long it took,
 * instead of a minute of blank screen; then the demo runs. Driven with a fake clock and fake steps.
 */
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs script without declarations
import { BUILD, buildThenRun } from '../../scripts/demo.mjs'

const ROOT = resolve(import.meta.dirname, '..', '..')
const RUN = { command: 'botmesh', args: ['demo'] }

/** Fake steps: each takes `tookMs` on the fake clock and exits with its code. */
function fakeSteps(codes: Record<string, number>, tookMs: number) {
  let clock = 1_000
  const ran: string[] = []
  return {
    ran,
    now: () => clock,
    spawnStep: (command: string, args: string[]) => {
      ran.push([command, ...args].join(' '))
      clock += tookMs
      return Promise.resolve(codes[command] ?? 0)
    },
  }
}

describe('npm run demo', () => {
  it('runs scripts/demo.mjs, whose build is tsup with its own output silenced', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
    expect(scripts.demo).toBe('node scripts/demo.mjs')
    expect(BUILD).toEqual({ command: 'tsup', args: ['--silent'] })
  })

  it('says it builds before the build and how long it took after, then runs the demo', async () => {
    const lines: string[] = []
    const steps = fakeSteps({}, 64_200)
    const code = await buildThenRun({ run: RUN, print: (line: string) => lines.push(line), ...steps })
    expect(code).toBe(0)
    expect(steps.ran).toEqual(['tsup --silent', 'botmesh demo'])
    expect(lines[0]).toMatch(/^botmesh demo: building dist\/ with tsup first/)
    expect(lines[1]).toBe('botmesh demo: built in 64.2 s; starting the demo')
  })

  it('stops at a failed build with its exit code and says so', async () => {
    const lines: string[] = []
    const steps = fakeSteps({ tsup: 2 }, 3_000)
    const code = await buildThenRun({ run: RUN, print: (line: string) => lines.push(line), ...steps })
    expect(code).toBe(2)
    expect(steps.ran).toEqual(['tsup --silent'])
    expect(lines.at(-1)).toBe("botmesh demo: the build failed after 3.0 s (exit code 2); see tsup's errors above")
  })
})
