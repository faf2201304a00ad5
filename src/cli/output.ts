/**
 * The one module that writes to stdout and stderr (and reads a prompt's answer). A command's
 * result is exactly one JSON document on stdout with `--json` (human messages then go to stderr),
 * and otherwise a view: tables drawn by cli-table3 on a terminal, plain aligned columns off one.
 * Colour only on a terminal and never with NO_COLOR. Every human line has the backend URL's
 * password scrubbed from it.
 */
import { createInterface } from 'node:readline'
import Table from 'cli-table3'
import { scrubSecrets } from '../backends/backend-url.js'
import { BotmeshError } from '../core/errors.js'

/** Colours a cell or a line may ask for; dropped when colour is off. */
export type Tone = 'red' | 'yellow' | 'green' | 'cyan' | 'dim' | 'bold'

/** One column of a table: a header and how to get the cell from a row. */
export interface Column<T> {
  header: string
  value(row: T): string | number | null | undefined
  align?: 'left' | 'right'
  /** Cells longer than this are cut with … on a terminal (never off one, so grep sees everything). @default 60 */
  maxWidth?: number
  tone?(row: T): Tone | undefined
}

/** What a human sees of a result: blocks printed in order. */
export type Block =
  | { table: { columns: Column<never>[]; rows: unknown[]; empty?: string } }
  | { text: string; tone?: Tone }
  | { fields: [label: string, value: string | number | null | undefined][] }

/** Builds a table block with typed columns. */
export function table<T>(columns: Column<T>[], rows: readonly T[], empty?: string): Block {
  return { table: { columns: columns as Column<never>[], rows: [...rows], empty } }
}

/** A writable stream as the output module needs it. */
export interface OutStream {
  write(chunk: string): boolean
  once(event: 'drain', listener: () => void): unknown
  isTTY?: boolean
}

/** The streams of a CLI run (process.stdout/stderr/stdin, or a test's). */
export interface Streams {
  stdout: OutStream
  stderr: OutStream
  stdin: NodeJS.ReadableStream & { isTTY?: boolean }
}

/** Progress of long work, drawn on stderr when it is a terminal; a no-op otherwise. */
export interface Progress {
  update(done: number, detail?: string): void
  /** Clears the progress line. */
  done(): void
}

const ANSI: Record<Tone, [string, string]> = {
  red: ['\x1b[31m', '\x1b[39m'],
  yellow: ['\x1b[33m', '\x1b[39m'],
  green: ['\x1b[32m', '\x1b[39m'],
  cyan: ['\x1b[36m', '\x1b[39m'],
  dim: ['\x1b[2m', '\x1b[22m'],
  bold: ['\x1b[1m', '\x1b[22m'],
}

/** Redraws of a progress line at most this often. */
const PROGRESS_EVERY_MS = 100
const CELL_WIDTH_DEFAULT = 60

export class Output {
  #json = false
  #secrets: string[] = []
  readonly #streams: Streams
  readonly #noColor: boolean

  constructor(streams: Streams, env: NodeJS.ProcessEnv) {
    this.#streams = streams
    this.#noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== ''
  }

  /** Sets the mode for this run (from the resolved config) and the secrets to scrub. */
  configure(options: { json: boolean; secrets?: readonly string[] }): void {
    this.#json = options.json
    this.#secrets = [...(options.secrets ?? [])]
  }

  get json(): boolean {
    return this.#json
  }

  /** Whether stdout is a terminal (tables with borders, colour unless NO_COLOR). */
  get terminal(): boolean {
    return this.#streams.stdout.isTTY === true
  }

  /** Whether a question can be asked and answered (stdin and stderr are terminals). */
  get canPrompt(): boolean {
    return this.#streams.stdin.isTTY === true && this.#streams.stderr.isTTY === true
  }

  /** The command's result: one JSON document with --json, else its human view. */
  result<T>(data: T, view: (data: T) => Block[]): void {
    if (this.#json) {
      this.#streams.stdout.write(`${JSON.stringify(data, null, 2)}\n`)
      return
    }
    for (const block of view(data)) this.#streams.stdout.write(this.#render(block, this.#streams.stdout))
  }

  /** One sample of a stream of results (`stats --watch --json`): one compact JSON document a line. */
  jsonLine(data: unknown): void {
    this.#streams.stdout.write(`${JSON.stringify(data)}\n`)
  }

  /** Clears a terminal before a view is drawn again (`--watch`); nothing off a terminal. */
  clear(): void {
    if (this.terminal && !this.#json) this.#streams.stdout.write('\x1b[2J\x1b[H')
  }

  /** Human blocks about the work, not its result (a plan before a prompt): stdout, or stderr under --json. */
  show(blocks: Block[]): void {
    const stream = this.#json ? this.#streams.stderr : this.#streams.stdout
    for (const block of blocks) stream.write(this.#render(block, stream))
  }

  /** A human message about the work (not the result): stdout, or stderr under --json. */
  info(text: string, tone?: Tone): void {
    const stream = this.#json ? this.#streams.stderr : this.#streams.stdout
    stream.write(`${this.#paint(this.#scrub(text), tone, stream)}\n`)
  }

  /** A warning or a note that must not mix with a result: always stderr. */
  note(text: string, tone?: Tone): void {
    this.#streams.stderr.write(`${this.#paint(this.#scrub(text), tone, this.#streams.stderr)}\n`)
  }

  /** The one line an error gets: its message and its stable code. */
  error(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error)
    const code = error instanceof BotmeshError ? ` (${error.code})` : ''
    this.#streams.stderr.write(`${this.#paint(`botmesh: ${this.#scrub(message.split('\n')[0]!)}${code}`, 'red', this.#streams.stderr)}\n`)
  }

  /** Writes data as it is (export lines, Prometheus text); resolves when the stream can take more. */
  async raw(text: string): Promise<void> {
    if (!this.#streams.stdout.write(text)) await new Promise<void>((resolve) => this.#streams.stdout.once('drain', resolve))
  }

  /** Commander's own output (help, usage errors) goes through here too. */
  commanderOutput(): { writeOut(text: string): void; writeErr(text: string): void; outputError(text: string, write: (text: string) => void): void } {
    return {
      writeOut: (text) => this.#streams.stdout.write(text),
      writeErr: (text) => this.#streams.stderr.write(this.#scrub(text)),
      outputError: (text, write) => write(this.#paint(this.#scrub(text.trimEnd()), 'red', this.#streams.stderr) + '\n'),
    }
  }

  /** A progress line on stderr (a terminal only): `label done/total detail`. */
  progress(label: string, total?: number): Progress {
    const stderr = this.#streams.stderr
    if (stderr.isTTY !== true) return { update: () => {}, done: () => {} }
    let last = 0
    return {
      update: (done, detail) => {
        const now = Date.now()
        if (now - last < PROGRESS_EVERY_MS && done !== total) return
        last = now
        const count = total === undefined ? `${done}` : `${done}/${total}`
        stderr.write(`\r\x1b[2K${this.#paint(label, 'cyan', stderr)} ${count}${detail ? ` ${this.#scrub(detail).slice(0, 80)}` : ''}`)
      },
      done: () => {
        stderr.write('\r\x1b[2K')
      },
    }
  }

  /** Asks a yes/no question on the terminal; resolves true only for y or yes. */
  async confirm(question: string): Promise<boolean> {
    const prompt = createInterface({ input: this.#streams.stdin, output: this.#streams.stderr as unknown as NodeJS.WritableStream, terminal: false })
    try {
      const answer = await new Promise<string>((resolve) => {
        prompt.once('close', () => resolve(''))
        prompt.question(`${this.#scrub(question)} [y/N] `, resolve)
      })
      return /^y(es)?$/i.test(answer.trim())
    } finally {
      prompt.close()
    }
  }

  #render(block: Block, stream: OutStream): string {
    if ('text' in block) return `${this.#paint(this.#scrub(block.text), block.tone, stream)}\n`
    if ('fields' in block) {
      const width = Math.max(0, ...block.fields.map(([label]) => label.length))
      return block.fields.map(([label, value]) => `${this.#paint(label.padEnd(width), 'bold', stream)}  ${this.#scrub(String(value ?? '-'))}\n`).join('')
    }
    const { columns, rows, empty } = block.table
    if (rows.length === 0) return `${this.#paint(empty ?? '(none)', 'dim', stream)}\n`
    return stream.isTTY === true ? this.#box(columns, rows, stream) : this.#plain(columns, rows)
  }

  /** A cli-table3 table, for a terminal. */
  #box(columns: Column<never>[], rows: unknown[], stdout: OutStream): string {
    const drawn = new Table({
      head: columns.map((column) => this.#paint(column.header, 'bold', stdout)),
      colAligns: columns.map((column) => column.align ?? 'left'),
      style: { head: [], border: [] },
    })
    for (const row of rows) {
      drawn.push(
        columns.map((column) => {
          const text = this.#cell(column, row as never)
          const width = column.maxWidth ?? CELL_WIDTH_DEFAULT
          const cut = text.length > width ? `${text.slice(0, width - 1)}…` : text
          return this.#paint(cut, column.tone?.(row as never), stdout)
        }),
      )
    }
    return `${drawn.toString()}\n`
  }

  /** Aligned columns without borders or colour, for pipes and files: whole values, one row a line. */
  #plain(columns: Column<never>[], rows: unknown[]): string {
    const cells = [columns.map((column) => column.header.toUpperCase()), ...rows.map((row) => columns.map((column) => this.#cell(column, row as never)))]
    const widths = columns.map((_, index) => Math.max(...cells.map((line) => line[index]!.length)))
    return cells
      .map((line) => line.map((cell, index) => (columns[index]!.align === 'right' ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!))).join('  ').trimEnd())
      .join('\n')
      .concat('\n')
  }

  #cell(column: Column<never>, row: never): string {
    const value = column.value(row)
    return this.#scrub(value === null || value === undefined ? '-' : String(value).replace(/\s+/g, ' '))
  }

  #paint(text: string, tone: Tone | undefined, stream: OutStream): string {
    if (!tone || this.#noColor || stream.isTTY !== true) return text
    const [open, close] = ANSI[tone]
    return `${open}${text}${close}`
  }

  #scrub(text: string): string {
    return scrubSecrets(text, this.#secrets)
  }
}
