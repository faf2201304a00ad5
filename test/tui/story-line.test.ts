/**
 * The story told beside the dashboard (the demo's steps) on its message line: shown when nothing
 * more pressing is there, the last line at once for a dashboard that subscribes late.
 */
import { describe, expect, it } from 'vitest'
import { StoryTeller } from '../../src/tui/io/story-feed.js'
import { initialState, reduce } from '../../src/tui/state/reduce.js'
import { messageLines } from '../../src/tui/views/MessageLine.js'
import { themeFor } from '../../src/tui/views/theme.js'

const state = () => initialState({ label: 'sqlite:./data/bot.db', refreshMs: 500, now: 1_000 })
const linesOf = (s: ReturnType<typeof state>, width = 80) =>
  messageLines({ ...s, width, theme: themeFor({}), filter: s.filter, story: s.story })

describe('the story on the message line', () => {
  it('shows the step told, behind a notice and the filter in use, wrapped whole at 80 columns', () => {
    const text = "4/6 the crash: heidi's reply is sent, then the bot process (pid 4242) is killed with SIGKILL before her handler completes"
    const told = reduce(state(), { type: 'story', text })
    expect(linesOf(told).join(' ')).toBe(`▸ ${text}`)
    expect(linesOf(told).every((line) => line.length <= 80)).toBe(true)
    const noticed = { ...told, notice: { tone: 'ok' as const, text: 'replayed 1', at: 1_000 } }
    expect(linesOf(noticed)).toEqual(['✔ replayed 1'])
    expect(linesOf({ ...told, filter: 'grace' })[0]).toMatch(/^filter "grace"/)
  })

  it('gives a late subscriber the last line at once, and every line after', () => {
    const teller = new StoryTeller()
    teller.tell('1/6 messages')
    teller.tell('2/6 a flow')
    const heard: string[] = []
    const unsubscribe = teller.subscribe((line) => heard.push(line))
    teller.tell('3/6 a failing send')
    unsubscribe()
    teller.tell('4/6 the crash')
    expect(heard).toEqual(['2/6 a flow', '3/6 a failing send'])
  })
})
