/**
 * Which engine runs a durable bot. The steps engine (steps/steps-engine.ts) takes over from the engine
 * of message-engine.ts one backend at a time: it is the default on the backends in
 * `STEPS_BY_DEFAULT` (memory), and `BOTMESH_ENGINE` in the environment chooses one engine for every
 * backend (`steps`: wherever the backend speaks the steps, `message`: everywhere). Either way a bot
 * runs on the steps engine only where its backend speaks them (memory, Redis, PostgreSQL) and without
 * the options it does not carry yet (coordination, a leader-only transport session): anything else
 * runs on message-engine.ts. The crash matrix names a case's engine for its backend instead (`chooseEngine`).
 */
import { resolveDurabilityConfig } from './config.js'
import { ConfigError } from '../errors/errors.js'
import type { DurabilityBackend } from './journal/backend.js'
import { MemoryDurability } from './memory/memory-durability.js'
import { MessageEngine, type MessageEngineDeps } from './message-engine.js'
import type { EnginePort } from './port.js'
import type { JournalSteps } from './steps/journal-steps.js'
import { StepsEngine } from './steps/steps-engine.js'

/** The environment variable that chooses one engine for every backend: `steps` or `message`. */
export const ENGINE_VARIABLE = 'BOTMESH_ENGINE'

/** The engines a bot can run on. */
export type EngineName = 'steps' | 'message'

/** The backends (by `kind`) the steps engine has been moved to: a bot on one runs on it unless told otherwise. */
export const STEPS_BY_DEFAULT: ReadonlySet<string> = new Set(['memory'])

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
  const wanted =
    chosenFor.get(backend) ?? engineOf(process.env[ENGINE_VARIABLE]) ?? (STEPS_BY_DEFAULT.has(backend.kind) ? 'steps' : 'message')
  const chosen = wanted === 'steps' && speaksSteps(backend) && carries(deps, backend)
  if (!chosen) return new MessageEngine({ ...deps, options: { ...deps.options, backend } })
  return new StepsEngine(deps, backend, backend.steps(deps.scope))
}

/** The engine the environment variable names, or undefined when it is unset; a value naming none is refused. */
function engineOf(value: string | undefined): EngineName | undefined {
  if (value === undefined || value === '') return undefined
  if (value === 'steps' || value === 'message') return value
  throw new ConfigError(`${ENGINE_VARIABLE}=${JSON.stringify(value)} names no engine: use 'steps' or 'message', or leave it unset`)
}

function speaksSteps(backend: DurabilityBackend): backend is StepsBackend {
  return typeof (backend as Partial<StepsBackend>).steps === 'function'
}

/** Whether the steps engine carries every option the bot asks for. */
function carries(deps: MessageEngineDeps, backend: DurabilityBackend): boolean {
  const config = resolveDurabilityConfig(deps.options, deps.namespace, backend)
  return config.coordination === null && config.providerSession === 'any'
}
