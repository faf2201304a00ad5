/**
 * The parent's handle on one bot process of the kill -9 test (test/fixtures/kill-nine/bot.ts): spawn
 * it warm (modules loaded, no bot yet), start its bot, talk to it over IPC, SIGKILL it, and know when
 * it is gone: exited, and its IPC channel drained, so every message it managed to write (a provider
 * call, an acknowledgement) has reached the channel before the next process starts.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { FromBot, KillNineBotConfig, ToBot } from '../../test/fixtures/kill-nine/protocol.js'

const LOADER = fileURLToPath(new URL('../ts-loader.mjs', import.meta.url))
const SCRIPT = fileURLToPath(new URL('../../test/fixtures/kill-nine/bot.ts', import.meta.url))

export class KillNineProcess {
  readonly #child: ChildProcess
  /** Resolves with the exit code or signal once the process exited and its IPC channel closed. */
  readonly gone: Promise<string>
  /** Resolves once its modules are loaded. */
  readonly warm: Promise<void>
  #stderr = ''
  #killed = false

  /** `backendModule`: what the process loads while warm to open the backend and the store. */
  constructor(backendModule: string) {
    this.#child = spawn(process.execPath, ['--import', LOADER, SCRIPT, backendModule], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
    this.#child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-8_000)
    })
    const exited = new Promise<string>((resolve) => this.#child.once('exit', (code, signal) => resolve(signal ?? String(code))))
    const disconnected = new Promise<void>((resolve) => this.#child.once('disconnect', resolve))
    this.gone = Promise.all([exited, disconnected]).then(([how]) => how)
    this.warm = new Promise((resolve, reject) => {
      this.#child.on('message', (message: FromBot) => 'warm' in message && resolve())
      void exited.then((how) => reject(new Error(`a bot process exited before it was warm (${how}): ${this.#stderr}`)))
    })
    // A process that exits before warm, or is never started, must not leave an unhandled rejection.
    this.warm.catch(() => undefined)
  }

  /** Calls `listener` with each message the process sends, also those read after it was killed. */
  onMessage(listener: (message: FromBot) => void): void {
    this.#child.on('message', listener)
  }

  start(config: KillNineBotConfig): void {
    this.send({ start: config })
  }

  send(message: ToBot): void {
    // The channel may close between the check and the send (the process just died); `gone` tells.
    if (this.#child.connected) this.#child.send(message, () => undefined)
  }

  kill(): void {
    this.#killed = true
    this.#child.kill('SIGKILL')
  }

  /** Whether this test killed it. */
  get killed(): boolean {
    return this.#killed
  }

  get stderr(): string {
    return this.#stderr
  }
}
