/**
 * A backend wrapper that lets a transport test control the inbox's admit write: fail the next ones
 * (the journal is down) or hold them at a gate (the journal is slow), to see what the platform is
 * answered meanwhile.
 */
import type { DurabilityBackend, Journal } from '../../src/core/durability/journal/backend.js'
import { deferred } from '../../test-utils/wait.js'

export class AdmitGate implements DurabilityBackend {
  readonly kind: string
  readonly shared: boolean
  readonly scoped: boolean
  /** Admit writes that reached the backend. */
  admits = 0
  #failures = 0
  #gate: ReturnType<typeof deferred<void>> | undefined
  #waiting = 0

  constructor(readonly inner: DurabilityBackend) {
    this.kind = inner.kind
    this.shared = inner.shared
    this.scoped = inner.scoped
  }

  /** The next `n` admits fail. */
  failNext(n: number): this {
    this.#failures += n
    return this
  }

  /** Admits wait until `release()`. */
  hold(): { release(): void; waiting(): number } {
    const gate = deferred()
    this.#gate = gate
    return {
      release: () => {
        this.#gate = undefined
        gate.resolve()
      },
      waiting: () => this.#waiting,
    }
  }

  start = () => this.inner.start()
  stop = () => this.inner.stop()
  now = () => this.inner.now()
  scopes = () => this.inner.scopes()

  journal(scopeId: string): Journal {
    const inner = this.inner.journal(scopeId)
    return new Proxy(inner, {
      get: (target, prop, receiver) => {
        if (prop !== 'write') return Reflect.get(target, prop, receiver) as unknown
        return async (name: Parameters<Journal['write']>[0], writes: Parameters<Journal['write']>[1]) => {
          if (name === 'inbox.admit') {
            if (this.#gate) {
              this.#waiting++
              await this.#gate.promise
              this.#waiting--
            }
            if (this.#failures > 0) {
              this.#failures--
              throw new Error('the journal is down (scripted)')
            }
            this.admits++
          }
          return target.write(name, writes)
        }
      },
    })
  }
}
