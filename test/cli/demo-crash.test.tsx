/**
 * The demo's crash on the dashboard: the demo kills its bot with SIGKILL mid-story and starts it
 * again under the same instanceId; the Instances panel lists the killed run as lost, with what it
 * held that the next run took back, also once that run stopped (from the heartbeat the new run
 * wrote, not from the demo). The built demo worker runs (test/cli builds dist first).
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEMO_SCOPE, runDemo } from '../../src/demo/run-demo.js'
import { KEYS, joined, linesOf, mountDashboard, useTempDirs } from '../tui/helpers.js'

const tempDir = useTempDirs()

describe('botmesh demo on the dashboard', () => {
  it('shows the killed run as lost with what it held, at 80 columns, after the story too', async () => {
    const file = join(tempDir(), 'bot.db')
    const story: string[] = []
    const demo = runDemo({ file, crashAfterMs: 1_000, pace: { stepMs: 0 }, print: (line) => story.push(line) })
    const dashboard = mountDashboard(`sqlite:${file}`, { scope: DEMO_SCOPE, refreshMs: 200 })
    const summary = await demo
    const pidOf = (pattern: RegExp) => Number(story.map((line) => pattern.exec(line)?.[1]).find(Boolean))
    const killed = pidOf(/^bot started \(pid (\d+)\)/)
    const restarted = pidOf(/^bot restarted \(pid (\d+)\)/)
    expect(killed).toBeGreaterThan(0)
    expect(restarted).not.toBe(killed)
    expect(summary.metrics.inboundJournaled).toBeGreaterThan(0)

    // The restarted run has stopped (its heartbeat is gone); the dashboard still lists the lost one.
    dashboard.press('1')
    const frame = await dashboard.until((f) => /^[›·] ✖ lost /m.test(f) && f.includes(`:${killed} `), 'the killed run listed as lost')
    expect(linesOf(frame).every((line) => line.length <= 80)).toBe(true)
    expect(frame).toMatch(new RegExp(`✖ lost .*:${killed} +beat .* held \\d+ in \\d+ out`))
    dashboard.resize(100, 30)
    // Up to its end: at 80 columns the line is cut after the pid when the pids are short (3 digits).
    const wide = await dashboard.until((f) => f.includes(`taken back by pid ${restarted} (✖ lost)`), 'the crash in words at 100 columns')
    expect(wide).toMatch(new RegExp(`Instances .*pid ${killed} died holding \\d+ in \\d+ out, taken back by pid ${restarted} \\(✖ lost\\)`))

    dashboard.resize(80, 24)
    dashboard.press(KEYS.enter)
    const detail = await dashboard.until((f) => f.includes(`pid ${killed} (lost)`), 'the lost run opened')
    expect(joined(detail)).toContain('it ended without a graceful stop (killed or crashed)')
    expect(joined(detail)).toMatch(new RegExp(`status +lost: replaced by pid ${restarted}`))
    expect(joined(detail)).toMatch(/the next run took back what it held: \d+ inbound record\(s\), replayed; \d+ send\(s\)/)
  }, 120_000)
})
