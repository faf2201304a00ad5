/**
 * End to end, by hand in a real terminal: the BUILT `botmesh` binary (dist, built by the CLI tests'
 * global setup when stale) runs `botmesh dashboard` in a shell inside tmux (its own server socket,
 * `new-session -d -x 100 -y 30`), against a SQLite journal. Keys go in with send-keys, the screen
 * comes back with capture-pane: a dead letter is replayed from the keyboard and leaves the DLQ; the
 * window is resized to 80×24 and the layout follows; q, Ctrl-C and SIGTERM each give the terminal
 * back (alternate screen left, cursor shown); NO_COLOR leaves no colour on the screen; a bad URL
 * and a pipe are refused before the screen changes.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { TestProject } from 'vitest/node'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { waitFor } from '../../test-utils/wait.js'
import { SCOPE } from '../fixtures/tui/seed.js'
import { joined, readRecord, seededSqlite, useTempDirs } from './helpers.js'

const run = promisify(execFile)
const ROOT = join(import.meta.dirname, '..', '..')
/**
 * Each test gets a tmux server of its own (a socket) with one shell, so one that failed half-way
 * leaves nothing running for the next, and a new session never meets a server still exiting after
 * the previous test's last session closed ("server exited unexpectedly").
 */
let SOCKET = ''
let SESSION = ''
let sessions = 0
const tempDir = useTempDirs()

const tmux = async (...args: string[]) => (await run('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { cwd: ROOT })).stdout
const screen = () => tmux('capture-pane', '-p', '-t', SESSION)
const screenWithEscapes = () => tmux('capture-pane', '-p', '-e', '-t', SESSION)
const paneFlag = async (name: string) => (await tmux('display-message', '-p', '-t', SESSION, `#{${name}}`)).trim()
const type = (text: string) => tmux('send-keys', '-t', SESSION, '-l', text)
const press = (...keys: string[]) => tmux('send-keys', '-t', SESSION, ...keys)
const lines = (text: string) => text.replace(/\n$/, '').split('\n')

async function until(check: (text: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  try {
    return await waitFor(
      async () => {
        const text = await screen()
        return check(text) ? text : undefined
      },
      { timeoutMs, intervalMs: 50, message: what },
    )
  } catch (error) {
    throw new Error(`${(error as Error).message}; the screen:\n${await screen()}`)
  }
}

const FOOTER = '⇥ ←→ 1-5 panel  ↑↓ jk row  pgdn pgup page  ? all keys  q quit'
/**
 * A whole frame is on the pane at `rows` rows: its first line and its footer. A capture can land
 * while tmux is still taking in a frame, so a test waits for both ends before reading anything.
 */
const drawn = (text: string, rows: number) => /^● /.test(lines(text)[0] ?? '') && lines(text)[rows - 2] === FOOTER

/** A shell prompt is back at the bottom of what the pane shows. */
const promptBack = (text: string) => lines(text.trimEnd()).at(-1) === '$'

/** The terminal was given back: no alternate screen, the cursor shown. */
async function restored(): Promise<void> {
  await waitFor(async () => (await paneFlag('alternate_on')) === '0' && (await paneFlag('cursor_flag')) === '1', {
    timeoutMs: 10_000,
    message: 'the alternate screen left and the cursor shown',
  })
}

/** An SGR sequence that sets a colour (foreground or background, 16, 256 or true colour). */
const COLOUR_SGR = /\x1b\[([0-9;]*)m/g
function colours(text: string): string[] {
  const found: string[] = []
  for (const [, params] of text.matchAll(COLOUR_SGR)) {
    const codes = (params ?? '').split(';').map(Number)
    if (
      codes.some(
        (code) => (code >= 30 && code <= 38) || (code >= 40 && code <= 48) || (code >= 90 && code <= 97) || (code >= 100 && code <= 107),
      )
    )
      found.push(params!)
  }
  return found
}

let db: string
let url: string
const command = (extra = '') => `${extra}node bin/botmesh.js dashboard --backend ${url} --refresh 300ms`

beforeAll(async () => {
  // The CLI tests' global setup builds dist when it is older than the sources (JS only, as for them).
  const { default: buildIfStale } = await import('../cli/global-setup.js')
  await buildIfStale({ vitest: { filenamePattern: [] } } as unknown as TestProject)
  url = await seededSqlite(tempDir())
  db = url.slice('sqlite:'.length)
}, 120_000)

beforeEach(async () => {
  SESSION = `shell-${++sessions}`
  SOCKET = `botmesh-tui-${randomBytes(4).toString('hex')}-${sessions}`
  // A clean shell: no CI (Ink draws nothing live under CI), no colour settings from the machine.
  await tmux(
    'new-session',
    '-d',
    '-x',
    '100',
    '-y',
    '30',
    '-s',
    SESSION,
    '-c',
    ROOT,
    "env -u CI -u NO_COLOR -u FORCE_COLOR PS1='$ ' bash --norc --noprofile",
  )
  await tmux('set-option', '-t', SESSION, 'status', 'off')
  await until(promptBack, 'the shell prompt')
})

afterEach(async () => {
  await tmux('kill-server').catch(() => {})
})

describe('botmesh dashboard in tmux (the built binary)', () => {
  it('replays a dead letter from the keyboard, follows a resize to 80×24, quits with q and gives the terminal back', async () => {
    await type('clear; echo before-the-dashboard; ' + command())
    await press('Enter')
    let text = await until((t) => t.includes('› in-dead-1') && drawn(t, 30), 'the dashboard with the inbox DLQ')
    expect(await paneFlag('alternate_on')).toBe('1')
    expect(text).not.toContain('before-the-dashboard')
    let shown = lines(text)
    expect(shown[0]).toMatch(new RegExp(`^● \\d\\d:\\d\\d:\\d\\d \\(\\d+ms\\) · every 300ms · scope ${SCOPE} · sqlite:`))
    expect(text).toMatch(/^inbox\s+pending 1 {2}processing 2 {2}done 1 {2}failed 1 {2}dead 3/m)
    expect(colours(await screenWithEscapes()).length).toBeGreaterThan(0)

    await type('r')
    await until((t) => t.includes('? Replay dead inbound record in-dead-1 (chat chat-a)?'), 'the confirmation')
    // The confirmation takes a reason, kept on the record as --reason does; enter confirms.
    await type('CRM fixed')
    // The question wraps rather than being cut; what is typed follows it.
    await until((t) => joined(t).includes('It runs again with a fresh budget. reason: CRM fixed█'), 'the reason typed')
    await press('Enter')
    text = await until(
      (t) => t.includes('✔ replayed 1 of 1: in-dead-1') && !/^[›· ] in-dead-1 /m.test(t) && drawn(t, 30),
      'the record out of the DLQ',
    )
    expect(text).toMatch(/^› in-dead-2 /m)
    expect(text).toMatch(/^inbox\s+pending 2 {2}processing 2 {2}done 1 {2}failed 1 {2}dead 2/m)
    const record = await readRecord(url, 'inbox', 'in-dead-1')
    expect(record).toMatchObject({ state: 'pending', attempts: 0 })
    expect(record?.audit?.at(-1)).toMatchObject({ action: 'replay', reason: 'CRM fixed' })

    // Larger, then 80×24: each layout is drawn from the top, nothing of the one before is left.
    await tmux('resize-window', '-t', SESSION, '-x', '130', '-y', '40')
    await until((t) => drawn(t, 40), 'the layout at 130×40')
    await tmux('resize-window', '-t', SESSION, '-x', '80', '-y', '24')
    text = await until((t) => drawn(t, 24), 'the layout at 80×24')
    shown = lines(text)
    // Under the header and the message line, which wraps at 80 columns when the replay's notice says
    // no instance is live (the seeded heartbeat ages past silent on a loaded machine).
    expect([2, 3]).toContain(shown.findIndex((line) => /^inbox /.test(line)))
    for (const title of ['1 Instances', '2 Active leases', '▶ 3 Inbox dead letters', '4 Outbox dead letters', '5 Unknown sends'])
      expect(text).toContain(title)

    await type('q')
    text = await until(promptBack, 'the shell prompt after q')
    await restored()
    expect(text).toContain('before-the-dashboard')
    expect(text).not.toContain('Inbox dead letters')
  })

  it('honours NO_COLOR, and gives the terminal back on Ctrl-C', async () => {
    await type('clear; ' + command('NO_COLOR=1 '))
    await press('Enter')
    await until((t) => /^› in-dead-\d /m.test(t) && drawn(t, 30), 'the dashboard')
    const escaped = await screenWithEscapes()
    expect(colours(escaped)).toEqual([])
    expect(escaped).toContain('\x1b[7m')
    await press('C-c')
    await until(promptBack, 'the shell prompt after Ctrl-C')
    await restored()
  })

  it('gives the terminal back when the process is told to stop (SIGTERM)', async () => {
    await type('clear; ' + command() + '; echo "exit=$?"')
    await press('Enter')
    await until((t) => /^› in-dead-\d /m.test(t) && drawn(t, 30), 'the dashboard')
    const { stdout } = await run('pgrep', ['-f', `dashboard --backend sqlite:${db} `])
    const pids = stdout
      .trim()
      .split('\n')
      .map(Number)
      .filter((pid) => pid !== process.pid)
    expect(pids).toHaveLength(1)
    process.kill(pids[0]!, 'SIGTERM')
    await until((t) => /exit=\d+/.test(t) && promptBack(t), 'the shell after SIGTERM')
    await restored()
  })

  it('with its backend down, at 80×24: the figures are unknown since when, and the message line keeps the cause', async () => {
    await tmux('resize-window', '-t', SESSION, '-x', '80', '-y', '24')
    // Nothing listens on port 1: every refresh fails with ECONNREFUSED.
    await type('clear; node bin/botmesh.js dashboard --backend postgres://postgres@127.0.0.1:1/test --scope a/b/c/d --refresh 300ms')
    await press('Enter')
    const text = await until((t) => /^✖ refresh failed/m.test(t) && t.includes('unknown since'), 'the failure shown')
    const shown = lines(text)
    expect(shown[1]).toMatch(/^✖ refresh failed( \d+×)?, (retry in [\dms ]+|retrying): connect ECONNREFUSED 127\.0\.0\.1:1/)
    expect(shown.every((line) => line.length <= 80)).toBe(true)
    // Unknown is not zero: no count claims the queues are empty.
    expect(text).toMatch(/^inbox\s+pending -  processing -  done -  failed -  dead -/m)
    expect(text).toMatch(/3 Inbox dead letters {2}unknown since \d\d:\d\d:\d\d/)
    expect(text).not.toMatch(/dead letters {2}(0|none)/)
    await type('q')
    await until(promptBack, 'the shell prompt after q')
    await restored()
  })

  it('refuses a bad URL and a stdin that is not a terminal, before the screen changes', async () => {
    await type('clear; node bin/botmesh.js dashboard --backend nope://x; echo "url-exit=$?"')
    await press('Enter')
    let text = await until((t) => /url-exit=\d/.test(t), 'the refusal of the URL')
    expect(text).toContain('unknown backend scheme "nope:"')
    expect(text).toContain('url-exit=2')
    await type(`clear; node bin/botmesh.js dashboard --backend ${url} < /dev/null; echo "pipe-exit=$?"`)
    await press('Enter')
    text = await until((t) => /pipe-exit=\d/.test(t), 'the refusal of a pipe')
    expect(text).toContain('botmesh dashboard needs a terminal')
    expect(text).toContain('pipe-exit=2')
    await restored()
  })
})
