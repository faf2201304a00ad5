/**
 * Files the CLI reads and writes for export and import: NDJSON a line at a time, so a journal of
 * any size streams through in constant memory (stdin is the exception: it can be read only once,
 * and import reads twice, so its lines are kept).
 */
import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { BotmeshError, ERROR_CODES } from '../core/errors/errors.js'
import { UsageError } from '../operator/errors.js'

/** Lines of stdin an import keeps at most. */
export const STDIN_LINES_MAX = 2_000_000

/** A new file written a line at a time; refuses a path that exists (never overwrite a backup). */
export function lineWriter(path: string): { write(line: string): Promise<void>; close(): Promise<void> } {
  if (existsSync(path)) throw new UsageError(`${path} exists; give a new file for --out (an export never overwrites one)`)
  const stream = createWriteStream(path, { flags: 'wx', mode: 0o600 })
  let failure: unknown
  stream.on('error', (error) => (failure = error))
  return {
    write: (line) =>
      new Promise((resolve, reject) => {
        if (failure) return reject(failure)
        if (stream.write(line)) resolve()
        else stream.once('drain', resolve)
      }),
    close: () =>
      new Promise((resolve, reject) => {
        if (failure) return reject(failure)
        stream.end((error?: Error | null) => (error ? reject(error) : resolve()))
      }),
  }
}

/** A source of lines that can be read more than once: a file (reopened each time) or stdin (kept). */
export async function lineSource(path: string, stdin: NodeJS.ReadableStream): Promise<() => AsyncIterable<string>> {
  if (path !== '-') {
    if (!existsSync(path)) throw new UsageError(`${path} does not exist`, ERROR_CODES.IMPORT_INVALID)
    if (!statSync(path).isFile()) throw new UsageError(`${path} is not a file`, ERROR_CODES.IMPORT_INVALID)
    return () => createInterface({ input: createReadStream(path), crlfDelay: Infinity })
  }
  const lines: string[] = []
  for await (const line of createInterface({ input: stdin, crlfDelay: Infinity })) {
    if (lines.length >= STDIN_LINES_MAX)
      throw new BotmeshError(ERROR_CODES.IMPORT_INVALID, `stdin holds more than ${STDIN_LINES_MAX} lines; import from a file instead`)
    lines.push(line)
  }
  return async function* () {
    yield* lines
  }
}
