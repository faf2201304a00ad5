/**
 * Which engine runs a durable bot. The steps engine (steps/steps-engine.ts) runs beside the engine of
 * message-engine.ts while it is moved to one backend at a time: today it is chosen only with
 * `BOTMESH_ENGINE=steps` in the environment (the benchmark and its own tests), on a backend that
 * speaks the steps (memory, Redis, PostgreSQL; its tests run it on memory), and without the options
 * it does not carry yet (coordination, a leader-only transport session). Anything else runs on
 * message-engine.ts. The crash matrix names a case's engine for its backend instead (`chooseEngine`).
 */
import { resolveDurabilityConfig } from './config.js'
import type { DurabilityBackend } from './journal/backend.js'
import { MemoryDurability } from './memory/memory-durability.js'
import { MessageEngine, type MessageEngineDeps } from './message-engine.js'
import type { EnginePort } from './port.js'
import type { JournalSteps } from './steps/journal-steps.js'
import { StepsEngine } from './steps/steps-engine.js'

/** The environment variable that chooses the steps engine where it can run. */
export const ENGINE_VARIABLE = 'BOTMESH_ENGINE'

/** The engines a bot can run on. */
export type EngineName = 'steps' | 'message'

/**
 * Engines chosen for a backend by the crash-testing kit (the crash matrix's `engine`), over the
 * environment: a case names its engine, and a matrix run beside another must not flip a process-wide variable.
 */
const chosenFor = new WeakMap<DurabilityBackend, EngineName>()

/** @internal Runs the bots started on `backend` on `engine` (the steps engine only where it can run, as with the variable). */
export function chooseEngine(backend: DurabilityBackend, engine: EngineName): void {
  chosenFor.set(backend, engine)
}

/** A backend that speaks the steps. */
interface StepsBackend extends DurabilityBackend {
  steps(scopeId: string): JournalSteps
}

export function createEngine(deps: MessageEngineDeps): EnginePort & { readonly durability: MessageEngine['durability'] } {
  const backend = deps.options.backend ?? new MemoryDurability()
  const wanted = chosenFor.get(backend) ?? (process.env[ENGINE_VARIABLE] === 'steps' ? 'steps' : 'message')
  const chosen = wanted === 'steps' && speaksSteps(backend) && carries(deps, backend)
  if (!chosen) return new MessageEngine({ ...deps, options: { ...deps.options, backend } })
  return new StepsEngine(deps, backend, backend.steps(deps.scope))
}

function speaksSteps(backend: DurabilityBackend): backend is StepsBackend {
  return typeof (backend as Partial<StepsBackend>).steps === 'function'
}

/** Whether the steps engine carries every option the bot asks for. */
function carries(deps: MessageEngineDeps, backend: DurabilityBackend): boolean {
  const config = resolveDurabilityConfig(deps.options, deps.namespace, backend)
  return config.coordination === null && config.providerSession === 'any'
}
