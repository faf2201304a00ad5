/**
 * The one module that writes to stdout and stderr (and reads a prompt's answer). A command's
 * result is exactly one JSON document on stdout with `-o json` (`--json`), one JSON value a line
 * with `-o jsonl` (human messages then go to stderr), and otherwise a view (render.ts): compact
 * tables that fit a terminal's width, plain aligned columns off one. Colour only on a terminal and
 * never with NO_COLOR. Every human line has the backend URL's password scrubbed from it and its
 * control characters escaped (services/terminal-text.ts).
 */
import { createInterface } from 'node:readline'
import { scrubSecrets } from '../operator/gateway/open.js'
import { BotmeshError } from '../core/errors/errors.js'
import { escapeControls } from '../operator/terminal-text.js'
import { renderBlock, type Block, type Canvas, type Tone } from './render.js'
import { TABLE_LIMITS } from './table-fit.js'

export { table, type Block, type Column, type Tone } from './render.js'

/** How a result is printed: a human view, one JSON document, or one JSON value a line. */
export const OUTPUT_FORMATS = ['table', 'json', 'jsonl'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

/** A writable stream as the output module needs it. */
export interface OutStream {
  write(chunk: string): boolean
  once(event: 'drain', listener: () => void): unknown
  isTTY?: boolean
  /** A terminal's width. */
  columns?: number
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

export class Output {
  #format: OutputFormat = 'table'
  #secrets: string[] = []
  readonly #streams: Streams
  readonly #noColor: boolean

  constructor(streams: Streams, env: NodeJS.ProcessEnv) {
    this.#streams = streams
    this.#noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== ''
  }

  /** Sets the format of this run (from the resolved config) and the secrets to scrub. */
  configure(options: { format: OutputFormat; secrets?: readonly string[] }): void {
    this.#format = options.format
    this.#secrets = [...(options.secrets ?? [])]
  }

  get format(): OutputFormat {
    return this.#format
  }

  /** Whether the result is for a program (json or jsonl): human messages then go to stderr. */
  get json(): boolean {
    return this.#format !== 'table'
  }

  /** Whether stdout is a terminal (tables with borders, colour unless NO_COLOR). */
  get terminal(): boolean {
    return this.#streams.stdout.isTTY === true
  }

  /** Whether a question can be asked and answered (stdin and stderr are terminals). */
  get canPrompt(): boolean {
    return this.#streams.stdin.isTTY === true && this.#streams.stderr.isTTY === true
  }

  /**
   * The command's result: one JSON document with -o json; with -o jsonl each of its `items` (an
   * array's elements by default, else the whole result) on a line of its own; else its human view.
   */
  result<T>(data: T, view: (data: T) => Block[], items?: (data: T) => readonly unknown[]): void {
    if (this.#format === 'json') {
      this.#streams.stdout.write(`${JSON.stringify(data, null, 2)}\n`)
      return
    }
    if (this.#format === 'jsonl') {
      const lines = items ? items(data) : Array.isArray(data) ? data : [data]
      for (const line of lines) this.jsonLine(line)
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
    if (this.terminal && !this.json) this.#streams.stdout.write('\x1b[2J\x1b[H')
  }

  /** Human blocks about the work, not its result (a plan before a prompt): stdout, or stderr under --json. */
  show(blocks: Block[]): void {
    const stream = this.json ? this.#streams.stderr : this.#streams.stdout
    for (const block of blocks) stream.write(this.#render(block, stream))
  }

  /** A human message about the work (not the result): stdout, or stderr under --json. */
  info(text: string, tone?: Tone): void {
    const stream = this.json ? this.#streams.stderr : this.#streams.stdout
    stream.write(this.#render({ text, tone }, stream))
  }

  /** A command to copy (a hint of what to run next): never wrapped, indented when it fits whole. */
  command(command: string, indent = 2): void {
    const stream = this.json ? this.#streams.stderr : this.#streams.stdout
    stream.write(this.#render({ command, indent }, stream))
  }

  /** A warning or a note that must not mix with a result: always stderr. */
  note(text: string, tone?: Tone): void {
    this.#streams.stderr.write(this.#render({ text, tone }, this.#streams.stderr))
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
  commanderOutput(): {
    writeOut(text: string): void
    writeErr(text: string): void
    outputError(text: string, write: (text: string) => void): void
  } {
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
    const prompt = createInterface({
      input: this.#streams.stdin,
      output: this.#streams.stderr as unknown as NodeJS.WritableStream,
      terminal: false,
    })
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
    const canvas: Canvas = {
      terminal: stream.isTTY === true,
      width: stream.columns || TABLE_LIMITS.terminalWidthDefault,
      paint: (text, tone) => this.#paint(text, tone, stream),
      scrub: (text) => this.#scrub(text),
    }
    return renderBlock(block, canvas)
  }

  #paint(text: string, tone: Tone | undefined, stream: OutStream): string {
    if (!tone || this.#noColor || stream.isTTY !== true) return text
    const [open, close] = ANSI[tone]
    return `${open}${text}${close}`
  }

  #scrub(text: string): string {
    return escapeControls(scrubSecrets(text, this.#secrets))
  }
}
