/**
 * What the failover tests share whatever their store: waiting until the journal has settled, and
 * writing a test's runs where a reader finds them (`.tmp/failover/`, or FAILOVER_REPORT_DIR).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { waitFor } from '../../test-utils/wait.js'

/** How long a journal may take to settle after a failover. */
const SETTLE_TIMEOUT_MS = 120_000
/** The botId of every failover test's bots. */
export const BOT_ID = 'failover'
/** The scope they journal in. */
const SCOPE = `default/default/${BOT_ID}/default`

/** Resolves once `probe`'s journal has settled: no message waiting or running, no send waiting or in flight. */
export async function journalSettled(probe: DurabilityBackend): Promise<void> {
  try {
    await waitFor(
      async () => {
        await probe.start()
        const journal = probe.journal(SCOPE)
        const [inbox, outbox] = await Promise.all([journal.count('inbox'), journal.count('outbox')])
        const busy = ['pending', 'processing', 'failed'].some((state) => (inbox[state] ?? 0) > 0)
        return !busy && !['pending', 'sending', 'failed'].some((state) => (outbox[state] ?? 0) > 0)
      },
      { timeoutMs: SETTLE_TIMEOUT_MS, intervalMs: 200, message: 'no message or send left waiting or running' },
    )
  } finally {
    await probe.stop()
  }
}

/** A test's runs as a JSON file named for the test. */
export function writeRuns(name: string, runs: readonly unknown[]): void {
  const dir = process.env.FAILOVER_REPORT_DIR ?? fileURLToPath(new URL('../../.tmp/failover/', import.meta.url))
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, `${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.json`), `${JSON.stringify({ name, runs }, null, 2)}\n`)
}
