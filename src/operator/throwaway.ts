/**
 * Throwaway instances for the suites (conformance, crash-matrix, bench): fresh backends made
 * beside what the operator named and removed afterwards, never the operator's data.
 */
export { throwawayFactory, type ThrowawayFactory, type ThrowawayOptions } from './gateway/open.js'
