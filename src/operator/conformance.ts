/**
 * `conformance`: the library's conformance suite (src/testing/conformance) against a backend
 * an operator names, each case on a fresh throwaway instance (never the operator's data).
 */
import { CONFORMANCE_CASES, runCases, type CaseResult } from '../testing/conformance/index.js'
import type { ThrowawayFactory } from './gateway/open.js'
import { UsageError } from './errors.js'

/** The suite's outcome. */
export interface ConformanceReport {
  backend: string
  /** Where the throwaway instances were made. */
  instances: string
  cases: number
  passed: number
  failed: number
  ms: number
  results: CaseResult[]
}

/** Runs every case (or those whose name contains `match`), reporting each as it finishes. */
export async function runConformance(
  label: string,
  factory: ThrowawayFactory,
  options: { match?: string; onResult?: (result: CaseResult, index: number, total: number) => void } = {},
): Promise<ConformanceReport> {
  const cases = CONFORMANCE_CASES.filter((testCase) => !options.match || testCase.name.includes(options.match))
  if (cases.length === 0) throw new UsageError(`no conformance case matches "${options.match}"`)
  const started = performance.now()
  const results = await runCases(factory, cases, (result, index) => options.onResult?.(result, index, cases.length))
  const failed = results.filter((result) => !result.ok).length
  return {
    backend: label,
    instances: factory.description,
    cases: results.length,
    passed: results.length - failed,
    failed,
    ms: performance.now() - started,
    results,
  }
}
