/**
 * Which engine runs a durable bot (src/core/durability/engine-choice.ts): the steps engine on the
 * backends it has been moved to (memory), wrapped or not; the message engine elsewhere and for what
 * the steps engine does not carry; `BOTMESH_ENGINE` choosing one engine for every backend, and a
 * value naming none refused.
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import { ENGINE_VARIABLE } from '../../src/core/durability/engine-choice.js'
import { MemoryDurability } from '../../src/core/durability/memory/memory-durability.js'
import { MessageEngine } from '../../src/core/durability/message-engine.js'
import { StepsEngine } from '../../src/core/durability/steps/steps-engine.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { ConfigError } from '../../src/core/errors/error-groups.js'
import { crashable } from '../../src/testing/crashable.js'
import { fast, useBots } from './helpers.js'

const bots = useBots()

/** A backend that speaks the steps, of a kind the steps engine has not been moved to. */
class NotMovedYet extends MemoryDurability {
  override readonly kind = 'not-moved-yet'
}

let variable: string | undefined
let admits: { steps: MockInstance; message: MockInstance }

beforeEach(() => {
  variable = process.env[ENGINE_VARIABLE]
  delete process.env[ENGINE_VARIABLE]
  admits = { steps: vi.spyOn(StepsEngine.prototype, 'admit'), message: vi.spyOn(MessageEngine.prototype, 'admit') }
})

afterEach(() => {
  if (variable === undefined) delete process.env[ENGINE_VARIABLE]
  else process.env[ENGINE_VARIABLE] = variable
  vi.restoreAllMocks()
})

/** The engine that admitted a message of a bot started on `backend` with these options. */
async function engineOf(backend: DurabilityBackend, options: { coordination?: boolean } = {}): Promise<'steps' | 'message'> {
  const t = await bots.start({ durability: fast({ backend, ...options }), untapped: true })
  await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
  const counts = [admits.steps.mock.calls.length, admits.message.mock.calls.length]
  admits.steps.mockClear()
  admits.message.mockClear()
  if (counts[0] === 1 && counts[1] === 0) return 'steps'
  if (counts[0] === 0 && counts[1] === 1) return 'message'
  throw new Error(`admitted by both or neither: ${counts.join(', ')}`)
}

describe('the engine a durable bot runs on', () => {
  it('is the steps engine on memory, also through a wrapper that passes the steps on', async () => {
    expect(await engineOf(new MemoryDurability())).toBe('steps')
    expect(await engineOf(crashable(new MemoryDurability()))).toBe('steps')
  })

  it('is the message engine on a backend the steps engine has not been moved to, and where it does not carry the options', async () => {
    expect(await engineOf(new NotMovedYet())).toBe('message')
    expect(await engineOf(new MemoryDurability(), { coordination: true })).toBe('message')
  })

  it('is the one BOTMESH_ENGINE names, for every backend where that engine can run', async () => {
    process.env[ENGINE_VARIABLE] = 'message'
    expect(await engineOf(new MemoryDurability())).toBe('message')
    process.env[ENGINE_VARIABLE] = 'steps'
    expect(await engineOf(new NotMovedYet())).toBe('steps')
    expect(await engineOf(new MemoryDurability(), { coordination: true })).toBe('message')
  })

  it('refuses a BOTMESH_ENGINE that names no engine, saying which values it takes', async () => {
    process.env[ENGINE_VARIABLE] = 'stpes'
    const refused = await bots
      .start({ durability: fast({ backend: new MemoryDurability() }), untapped: true })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ConfigError)
    expect((refused as ConfigError).message).toMatch(/BOTMESH_ENGINE="stpes" names no engine: use 'steps' or 'message'/)
  })
})
