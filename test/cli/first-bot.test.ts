/**
 * docs/getting-started.md's first bot, run as the page says (issue 44): its `bot.mjs` and its
 * commands are read from the page, so the page cannot drift from what is tested. The bot runs as a
 * child process on SQLite, is SIGKILLed inside a handler, restarts, and every message is answered
 * exactly once across both runs; then the page's `botmesh` commands read the journal it left.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { botmesh, ROOT } from './helpers.js'

const PAGE = readFileSync(join(ROOT, 'docs', 'getting-started.md'), 'utf8')
// Inside the repository (.tmp is git-ignored), so that `botmesh/core` resolves to the package itself.
const DIR = join(ROOT, '.tmp', `first-bot-${process.pid}`)
afterAll(() => rmSync(DIR, { recursive: true, force: true }))

/** The code of the page's ``` block of `lang` that contains `marker`. */
function block(lang: string, marker: string): string {
  const found = [...PAGE.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].find((match) => match[1]!.includes(marker))
  if (!found) throw new Error(`docs/getting-started.md has no \`\`\`${lang} block with ${marker}`)
  return found[1]!
}

/** A block's commands, without their comments. */
const commands = (code: string): string[] =>
  code
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean)

interface Run {
  stdout: string
  code: number | null
  signal: NodeJS.Signals | null
}

/** Runs `node bot.mjs` in DIR; `killWhen` sees the output so far and says when to SIGKILL it (as `kill -9`). */
function runBot(killWhen?: (stdout: string) => boolean): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bot.mjs'], { cwd: DIR, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    // A hang detector only: the bot answers eight messages a second apart.
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000)
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      if (killWhen?.(stdout)) child.kill('SIGKILL')
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (code !== 0 && signal === null) reject(new Error(`bot.mjs exited ${code}:\n${stdout}\n${stderr}`))
      else resolve({ stdout, code, signal })
    })
  })
}

const delivered = (stdout: string): string[] => [...stdout.matchAll(/^delivered to ann: (.*)$/gm)].map((match) => match[1]!)

describe('the first bot of docs/getting-started.md', () => {
  it('killed with kill -9 inside a handler and restarted: every message answered once, and the CLI shows it', async () => {
    mkdirSync(DIR, { recursive: true })
    writeFileSync(join(DIR, 'bot.mjs'), block('js', 'new SQLiteStore'))
    const [first, again, ...rest] = commands(block('sh', 'node bot.mjs'))
    expect(rest).toEqual([])
    // The page's `sleep N` gives a person a few replies before the kill; here the kill waits for them
    // instead of the clock: it lands once the third message's handler has started its slow work.
    expect(first).toMatch(/^node bot\.mjs & sleep \d+; kill -9 \$!$/)
    expect(again).toBe('node bot.mjs')

    const killed = await runBot((stdout) => stdout.includes('working on mock:ann:m3'))
    expect(killed.signal).toBe('SIGKILL')
    // Mid-way: two replies out at least (a loaded machine may deliver the kill a little later), not all.
    expect(delivered(killed.stdout).slice(0, 2)).toEqual(['echo: hello 1', 'echo: hello 2'])
    expect(delivered(killed.stdout).length).toBeLessThan(8)
    // The message whose handler the kill cut short.
    const cut = [...killed.stdout.matchAll(/^working on (\S+)$/gm)].at(-1)![1]!
    const restarted = await runBot()
    expect(restarted.code).toBe(0)
    const all = [...delivered(killed.stdout), ...delivered(restarted.stdout)]
    expect(all).toEqual(Array.from({ length: 8 }, (_, index) => `echo: hello ${index + 1}`))
    expect(restarted.stdout).toContain(`working on ${cut}`)

    const [list, show, ...more] = commands(block('sh', 'npx botmesh list')).map((line) => line.replace(/^npx botmesh /, '').split(' '))
    expect(more).toEqual([])
    const listed = await botmesh(list!, { cwd: DIR })
    expect(listed.code, listed.stderr).toBe(0)
    const rows = listed.stdout.split('\n').map((line) => line.trim().split(/\s+/))
    const inbox = rows.filter((row) => row[0] === 'inbox')
    const outbox = rows.filter((row) => row[0] === 'outbox')
    expect(inbox.map((row) => [row[1], row[2]])).toEqual(Array.from({ length: 8 }, (_, i) => [`mock:ann:m${i + 1}`, 'done']))
    expect(outbox.map((row) => [row[1], row[2], row[3]])).toEqual(
      Array.from({ length: 8 }, (_, i) => [`mock:ann:m${i + 1}:1`, 'sent', '1']),
    )
    // The message the kill cut short ran twice, the ones after it once. (The one before it may have
    // run twice too, when its acknowledgement had not landed: its reply then came from the outbox.)
    const attempts = new Map(inbox.map((row) => [row[1], row[3]]))
    expect(attempts.get(cut)).toBe('2')
    const after = inbox.slice(inbox.findIndex((row) => row[1] === cut) + 1)
    expect(after.map((row) => row[3])).toEqual(after.map(() => '1'))
    const shown = await botmesh(show!, { cwd: DIR })
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toMatch(/^inbox record +mock:ann:m1$/m)
    expect(shown.stdout).toMatch(/^state +done$/m)
    expect(shown.stdout).toContain('why: done at')
  }, 300_000)
})
