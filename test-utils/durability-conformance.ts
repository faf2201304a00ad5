/**
 * Runs the library's conformance suite (src/testing/conformance) under vitest: one test per
 * case, each on a fresh backend from the factory. A backend's test file is one call to this.
 */
import { describe, it } from 'vitest'
import { CONFORMANCE_CASES, runCase, type BackendFactory } from '../src/testing/conformance/index.js'

export function describeConformance(backendName: string, factory: BackendFactory): void {
  describe(`conformance: ${backendName}`, () => {
    for (const testCase of CONFORMANCE_CASES) {
      it(testCase.name, () => runCase(factory, testCase))
    }
  })
}
