/** What the persistence tests of Redis and PostgreSQL read: what a backend's logger was told, and what its start threw. */
import { expect } from 'vitest'
import { ConfigError } from '../src/core/errors/errors.js'

/** A logger that keeps what it was told, by level. */
export function recordingLogger() {
  const said = { warn: [] as string[], info: [] as string[] }
  return {
    said,
    logger: { warn: (message: string) => said.warn.push(message), info: (message: string) => said.info.push(message), error: () => {} },
  }
}

/** What a start threw: a refusal under requirePersistence (CONFIG_INVALID). */
export async function refusal(start: Promise<unknown>): Promise<ConfigError> {
  const error = await start.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(ConfigError)
  expect((error as ConfigError).code).toBe('CONFIG_INVALID')
  return error as ConfigError
}
