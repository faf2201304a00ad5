/**
 * The oracle of a real-process crash test: a file apart from the journal under test, where the
 * channel writes down each send it accepts (synced before the provider call returns, as a real
 * channel would have delivered it), each acknowledged inbound, and each ambiguous send reported.
 */
import { appendFileSync, closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs'
import type { OutboundContent, ProviderSendResult } from '../../core/provider/provider.js'
import { textOf } from '../../core/bot/hooks.js'
import { MockProvider, type MockProviderOptions } from '../mock-provider.js'

export type OracleLine = { sent: { chatId: string; text: string } } | { ambiguous: string } | { acked: string } | { storeFailedOnce: true }

/** Appends one line and syncs it, so a SIGKILL right after cannot lose it. */
export function appendOracle(file: string, line: OracleLine): void {
  const fd = openSync(file, 'a')
  try {
    writeSync(fd, `${JSON.stringify(line)}\n`)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Every complete line of the oracle (a line torn by the kill is not a fact and is skipped). */
export function readOracle(file: string): OracleLine[] {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        return line ? [JSON.parse(line) as OracleLine] : []
      } catch {
        return []
      }
    })
}

/** A MockProvider whose accepted sends go to the oracle file before the call returns. */
export class OracleProvider extends MockProvider {
  constructor(
    private readonly oracleFile: string,
    options: MockProviderOptions = {},
  ) {
    super(options)
  }

  override async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    const result = await super.send(chatId, content)
    appendOracle(this.oracleFile, { sent: { chatId, text: textOf(content) ?? '' } })
    return result
  }
}

/** Touches the oracle file so it exists (mode 0600) before the first child starts. */
export function createOracle(file: string): void {
  appendFileSync(file, '', { mode: 0o600 })
}
