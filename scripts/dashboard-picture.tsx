/**
 * Renders docs/dashboard.svg from a real run: the demo's story (a bot, a simulated channel, a crash
 * and a restart) on a fresh SQLite journal in a temp folder, then its live traffic, watched by the
 * dashboard at 80×24 on a real connection to that journal. `npm run docs:picture` runs it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { render } from 'ink-testing-library'
import { parseBackendUrl } from '../src/operator/gateway/open.js'
import { connect } from '../src/operator/dashboard-connection.js'
import { DEMO_SCOPE, startDemo } from '../src/demo/run-demo.js'
import { StoryTeller } from '../src/tui/io/story-feed.js'
import { Dashboard } from '../src/tui/views/Dashboard.js'
import { themeFor } from '../src/tui/views/theme.js'
import { waitFor } from '../test-utils/wait.js'
import { terminalSvg } from './terminal-svg.js'

const SIZE = { columns: 80, rows: 24 } as const
/** How long the live traffic runs before the picture is taken: long enough for rates and a sparkline. */
const LIVE_MS = 8_000
const OUT = join(import.meta.dirname, '..', 'docs', 'dashboard.svg')

const dir = mkdtempSync(join(tmpdir(), 'botmesh-picture-'))
// The status line shows the URL as an operator types it.
process.chdir(dir)
const url = 'sqlite:./data/bot.db'
try {
  // The story unpaced, its last step on the message line; the restarted bot goes on with live traffic.
  const story = new StoryTeller()
  const live = startDemo({
    file: './data/bot.db',
    pace: { stepMs: 0 },
    live: true,
    print: () => undefined,
    announce: (step) => story.tell(step.text),
  })
  await live.story
  const connection = connect(parseBackendUrl(url), { connectTimeoutMs: 5_000 })
  let stopped: Promise<void> = Promise.resolve()
  const app = render(
    <Dashboard
      connection={connection}
      refreshMs={1_000}
      scope={DEMO_SCOPE}
      theme={themeFor({})}
      story={story}
      onStopped={(p) => (stopped = p)}
    />,
  )
  Object.defineProperty(app.stdout, 'columns', { value: SIZE.columns, configurable: true })
  Object.defineProperty(app.stdout, 'rows', { value: SIZE.rows, configurable: true })
  app.stdout.emit('resize')
  try {
    await new Promise((resolve) => setTimeout(resolve, LIVE_MS))
    const frame = await waitFor(() => (/● live/.test(strip(app.lastFrame() ?? '')) ? app.lastFrame() : undefined), {
      timeoutMs: 30_000,
      message: 'the dashboard showing the live demo instance',
    })
    writeFileSync(OUT, terminalSvg(frame!, { columns: SIZE.columns, title: 'botmesh dashboard at 80×24, watching the demo bot' }))
    process.stdout.write(`wrote ${OUT}\n${strip(frame!)}\n`)
  } finally {
    app.unmount()
    await stopped
    await connection.close()
    await live.stop()
  }
} finally {
  process.chdir(tmpdir())
  rmSync(dir, { recursive: true, force: true })
}

function strip(text: string): string {
  return text.replace(/\x1b\[[\d;]*m/g, '')
}
