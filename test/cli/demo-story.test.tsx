/**
 * The demo tells its story where the newcomer is looking (issue 44): each step announced, the crash
 * landing after a reply was sent and before its handler completed (so the replay answers it from
 * the outbox), the exit summary counting what the dashboard counted, and one pair of pids in every
 * panel. Every pause of the story is 0 and the crash is a point in the story, not a timer.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { demoOnDashboard } from '../../src/demo/on-dashboard.js'
import { DEMO_SCOPE, runDemo, type DemoStoryStep } from '../../src/demo/run-demo.js'
import { StoryTeller } from '../../src/tui/io/story-feed.js'
import { linesOf, mountDashboard, readRecord, useTempDirs } from '../tui/helpers.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'

const tempDir = useTempDirs()
const NO_PAUSES = { stepMs: 0, messageMs: 0 }

/** The inbox's count of `state` on a frame of the dashboard's counts. */
function shownCount(frame: string, journal: 'inbox' | 'outbox', state: string): number {
  const line = linesOf(frame).find((l) => l.startsWith(journal)) ?? ''
  return Number(new RegExp(`\\b${state} (\\d+)`).exec(line)?.[1] ?? NaN)
}

describe('botmesh demo, its story', () => {
  it('announces every step in order, and the replay after the restart answers a reply from the outbox', async () => {
    const file = join(tempDir(), 'bot.db')
    const steps: DemoStoryStep[] = []
    const lines: string[] = []
    const summary = await runDemo({
      file,
      crashAfterMs: 0,
      pace: NO_PAUSES,
      print: (line) => lines.push(line),
      announce: (step) => steps.push(step),
    })
    expect(steps.map((step) => step.name)).toEqual(['messages', 'flow', 'failing send', 'crash', 'killed', 'restart', 'replay'])
    const killed = /^bot started \(pid (\d+)\)/.exec(lines.find((line) => line.startsWith('bot started')) ?? '')?.[1]
    const restarted = /^bot restarted \(pid (\d+)\)/.exec(lines.find((line) => line.startsWith('bot restarted')) ?? '')?.[1]
    expect(steps.find((step) => step.name === 'restart')?.text).toContain(
      `pid ${restarted} starts with the same instanceId and takes back what pid ${killed} held`,
    )
    // Each step is in the story's lines too (the log the dashboard's run writes).
    for (const step of steps.filter((step) => step.name !== 'killed')) expect(lines).toContain(`▸ ${step.text}`)
    expect(lines).toContain(`✖ crash: the bot process was killed with SIGKILL in the middle of its work (pid ${killed})`)
    expect(summary.metrics.outboxDeduped).toBeGreaterThan(0)
    expect(steps.at(-1)?.text).toMatch(/answered from the outbox \([1-9]\d*\), not sent twice/)
    expect(lines.join('\n')).toMatch(/answered from the outbox [1-9]/)
  }, 120_000)

  it('on the dashboard: the steps on its message line, the same pids in every panel, and a summary that counts what it showed', async () => {
    const dir = tempDir()
    const file = join(dir, 'bot.db')
    const story = new StoryTeller()
    const dashboard = mountDashboard(`sqlite:${file}`, { scope: DEMO_SCOPE, refreshMs: 100, story })
    dashboard.resize(100, 30)
    const printed: string[] = []
    let instancesFrame = ''
    const summary = await demoOnDashboard({
      file,
      crashAfterMs: 0,
      // Live traffic after the story, quick: the counts grow past what the story left.
      pace: { ...NO_PAUSES, livePaceMs: 20 },
      logFile: join(dir, 'demo.log'),
      announce: (step) => story.tell(step.text),
      print: (line) => printed.push(line),
      show: async () => {
        const told = await dashboard.until((f) => f.includes('▸ the story is told'), 'the end of the story on the message line', 60_000)
        for (const [columns, rows] of [
          [100, 30],
          [80, 24],
        ] as const) {
          dashboard.resize(columns, rows)
          const frame = await dashboard.until((f) => linesOf(f).length <= rows, `the frame at ${columns}×${rows}`)
          expect(linesOf(frame).every((line) => line.length <= columns)).toBe(true)
        }
        // Wide enough for the Instances title's crash in words, whole.
        dashboard.resize(120, 30)
        dashboard.press('1')
        instancesFrame = await dashboard.until(
          (f) => /taken back by pid \d+ \(✖ lost\)/.test(f) && /● live/.test(f),
          'the restart on the Instances panel',
        )
        // More records than the story's: live traffic went on after the story was told.
        const storyDone = shownCount(told, 'inbox', 'done')
        await dashboard.until((f) => shownCount(f, 'inbox', 'done') > storyDone + 10, 'live traffic on the counts', 60_000)
        dashboard.press('q')
        await dashboard.until(() => dashboard.exited(), 'the dashboard closed')
        return { counts: dashboard.shown()?.counts }
      },
    })
    const log = readFileSync(join(dir, 'demo.log'), 'utf8')
    const killed = /^bot started \(pid (\d+)\)/m.exec(log)?.[1]
    const restarted = /^bot restarted \(pid (\d+)\)/m.exec(log)?.[1]
    expect(killed).toBeDefined()
    expect(restarted).toBeDefined()
    // Every pid the Instances panel names is the killed run's or the one that took it back, which is the live one.
    const panel = linesOf(instancesFrame)
    const instances = panel.slice(
      panel.findIndex((line) => / 1 Instances /.test(line)),
      panel.findIndex((line) => / 2 Active leases /.test(line)),
    )
    // A pid cut by the width (`pid 601…`) is left out.
    const pids = new Set(instances.flatMap((line) => [...line.matchAll(/(?::|pid )(\d+)(?![\d…])/g)].map((match) => match[1])))
    expect([...pids].sort()).toEqual([killed, restarted].sort())
    expect(instancesFrame).toContain(`taken back by pid ${restarted}`)
    expect(instancesFrame).toMatch(new RegExp(`● live .*:${restarted} `))
    // The summary counts what the dashboard showed last, state by state.
    const shown = dashboard.shown()!.counts
    expect(summary.inbox).toEqual(shown.inbox)
    expect(summary.outbox).toEqual(shown.outbox)
    const inboxLine = printed.find((line) => line.startsWith('inbox:'))!
    expect(inboxLine).toContain(`done ${shown.inbox.done}`)
    expect(summary.metrics.outboxDeduped).toBeGreaterThan(0)
    // The booking's reply was marked sent before the crash: answered from the outbox, never unknown.
    const booking = await readRecord(`sqlite:${file}`, 'outbox', `${inboxRecordId('demo-channel', 'heidi', 'demo.heidi.24')}:1`, DEMO_SCOPE)
    expect(booking?.state).toBe('sent')
  }, 180_000)
})
