import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)

describe('botmesh/redis-store without ioredis installed', () => {
  it('imports and constructs without the driver, and start() says what to install', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        './test-utils/ts-loader.mjs',
        '--import',
        './test/fixtures/redis/hide-ioredis.mjs',
        'test/fixtures/redis/start-without-ioredis.ts',
      ],
      { cwd: process.cwd(), timeout: 20_000 },
    )
    const outcomes = JSON.parse(stdout.trim().split('\n').at(-1)!) as { code?: string; retryable?: boolean; message?: string }[]
    expect(outcomes).toHaveLength(2)
    for (const outcome of outcomes) {
      expect(outcome.code).toBe('DRIVER_MISSING')
      expect(outcome.retryable).toBe(false)
      expect(outcome.message).toContain('npm install ioredis')
    }
  })
})
