import { existsSync } from 'node:fs'
import { defineConfig } from 'tsup'

// One entry per public subpath (package.json "exports"); an entry joins the build once its file exists.
const entries = [
  'src/core/index.ts',
  'src/core/spi.ts',
  'src/core/testing/index.ts',
  'src/backends/sqlite/index.ts',
  'src/backends/redis/index.ts',
  'src/backends/postgres/index.ts',
  'src/backends/events/index.ts',
  'src/backends/events/durability.ts',
  'src/cli/main.ts',
  'src/demo/worker.ts',
  'src/core/testing/process-crash/child.ts',
].filter((file) => existsSync(file))

export default defineConfig({
  entry: Object.fromEntries(entries.map((file) => [file.replace(/^src\//, '').replace(/\.tsx?$/, ''), file])),
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  // Drivers stay external and load only when their backend is used.
  external: ['better-sqlite3', 'ioredis', 'pg', 'ink', 'react'],
})
