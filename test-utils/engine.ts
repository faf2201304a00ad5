/**
 * Runs the bots a test file (or a describe block) starts on one engine, whatever BOTMESH_ENGINE says
 * in the environment: `steps` for the steps engine's own tests, `message` for tests that arm the
 * message engine's journal writes (which the steps engine never makes). The variable is put back after.
 */
import { afterAll, beforeAll } from 'vitest'
import { ENGINE_VARIABLE, type EngineName } from '../src/core/durability/engine-choice.js'

export function onEngine(engine: EngineName): void {
  const before = process.env[ENGINE_VARIABLE]
  beforeAll(() => {
    process.env[ENGINE_VARIABLE] = engine
  })
  afterAll(() => {
    if (before === undefined) delete process.env[ENGINE_VARIABLE]
    else process.env[ENGINE_VARIABLE] = before
  })
}
