/** Runs conformance cases against a backend, outside any test framework (the CLI uses this). */
import { randomUUID } from 'node:crypto'
import type { BackendFactory, ConformanceCase, ConformanceContext } from './case.js'
import type { DurabilityBackend } from '../../core/durability/journal/backend.js'

/** The result of one case. */
export interface CaseResult {
  /** The case's name. */
  name: string
  /** Whether it passed. */
  ok: boolean
  /** How long it took, in ms. */
  ms: number
  /** Why it failed. */
  error?: string
}

/** Runs one case on a fresh backend from the factory, and always stops and cleans it up. */
export async function runCase(factory: BackendFactory, testCase: ConformanceCase): Promise<void> {
  const backend = await factory.create()
  await backend.start()
  try {
    await testCase.run(contextFor(backend))
  } finally {
    await backend.stop()
    await factory.cleanup?.(backend)
  }
}

/** Runs every case in order; reports each as it finishes. */
export async function runCases(
  factory: BackendFactory,
  cases: readonly ConformanceCase[],
  onResult: (result: CaseResult, index: number) => void = () => {},
): Promise<CaseResult[]> {
  const results: CaseResult[] = []
  for (const [index, testCase] of cases.entries()) {
    const started = performance.now()
    let result: CaseResult
    try {
      await runCase(factory, testCase)
      result = { name: testCase.name, ok: true, ms: performance.now() - started }
    } catch (error) {
      result = {
        name: testCase.name,
        ok: false,
        ms: performance.now() - started,
        error: error instanceof Error ? error.message : String(error),
      }
    }
    results.push(result)
    onResult(result, index)
  }
  return results
}

function contextFor(backend: DurabilityBackend): ConformanceContext {
  const scopeId = () => `conformance-${randomUUID().slice(0, 8)}`
  return { backend, scopeId, journal: () => backend.journal(scopeId()) }
}
