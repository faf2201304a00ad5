import { existsSync } from 'node:fs'
import { defineConfig } from 'tsup'

// One entry per public subpath (package.json "exports"); an entry joins the build once its file exists.
const entries = [
  'src/index.ts',
  'src/core/spi.ts',
  'src/core/testing/index.ts',
  'src/backends/sqlite/index.ts',
  'src/backends/redis/index.ts',
  'src/backends/postgres/index.ts',
  'src/backends/events/index.ts',
  'src/backends/events/durability.ts',
  'src/providers/index.ts',
  'src/providers/baileys/index.ts',
  'src/providers/meta/index.ts',
  'src/providers/telegram/index.ts',
  'src/providers/twilio/index.ts',
  'src/providers/messenger/index.ts',
  'src/providers/instagram/index.ts',
  'src/providers/discord/index.ts',
  'src/providers/evolution/index.ts',
  'src/providers/wppconnect/index.ts',
  'src/providers/gupshup/index.ts',
  'src/providers/gohighlevel/index.ts',
  'src/providers/email/index.ts',
  'src/providers/tiktok/index.ts',
  'src/prometheus/index.ts',
  'src/telemetry/index.ts',
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
  external: ['better-sqlite3', 'ioredis', 'pg', 'ink', 'react', 'grammy', 'prom-client', 'twilio', '@discordjs/rest', '@discordjs/ws', 'nodemailer', 'imapflow', 'mailparser'],
})
