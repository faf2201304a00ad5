/**
 * The demo's live traffic: after the story, the demo bot keeps receiving messages (the story's,
 * under fresh ids) until the operator quits the dashboard, then stops cleanly with its summary.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { demoMessages } from '../../src/demo/channel.js'
import { startLiveTraffic } from '../../src/demo/run-demo.js'
import { waitFor } from '../../test-utils/wait.js'

const dir = mkdtempSync(join(tmpdir(), 'botmesh-demo-live-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('botmesh demo, live traffic', () => {
  it('keeps messages flowing past one round of the story until stopped, then stops cleanly', async () => {
    const lines: string[] = []
    const live = startLiveTraffic(join(dir, 'bot.db'), (line) => lines.push(line), 5)
    const story = demoMessages().length
    const replies = () => lines.filter((line) => line.startsWith('  ← ')).length
    try {
      await waitFor(() => replies() > story, {
        timeoutMs: 60_000,
        message: `more replies than one round of the story (${story}): ${lines.slice(-5).join(' | ')}`,
      })
    } catch (error) {
      await live.stop().catch(() => undefined)
      throw error
    }
    const { metrics } = await live.stop()
    expect(metrics.inboundJournaled).toBeGreaterThan(story)
    expect(lines[0]).toMatch(/^live traffic \(pid \d+\)/)
  }, 90_000)
})
