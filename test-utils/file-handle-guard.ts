/**
 * Fails a test file that leaves a `node:fs/promises` FileHandle to the garbage collector (Node's
 * "Closing file descriptor N on garbage collection" and DEP0137): in production such a handle holds
 * its descriptor until a collection that may never come. Every handle `open()` gives is followed;
 * after the file's tests a full collection runs and each handle collected unclosed is reported with
 * the stack that opened it. A vitest setup file (vitest.config.ts), with `--expose-gc` on the forks.
 */
import { syncBuiltinESMExports } from 'node:module'
import { createRequire } from 'node:module'
import type { FileHandle } from 'node:fs/promises'
import { afterAll } from 'vitest'

const require = createRequire(import.meta.url)
const fsp = require('node:fs').promises as typeof import('node:fs/promises') & { [GUARDED]?: true }
const GUARDED = Symbol.for('botmesh.fileHandleGuard')

/** Where each unclosed handle the collector took was opened, and the warnings Node gave for them. */
const leaks: string[] = []
const warnings: string[] = []
const registry = new FinalizationRegistry<string>((openedAt) => leaks.push(openedAt))

if (!fsp[GUARDED]) {
  const open = fsp.open
  fsp.open = async function guardedOpen(...args: Parameters<typeof open>): Promise<FileHandle> {
    const openedAt = new Error(`a FileHandle of ${String(args[0])} was left to the garbage collector`).stack ?? ''
    const handle = await open(...args)
    registry.register(handle, openedAt, handle)
    const close = handle.close.bind(handle)
    handle.close = () => (registry.unregister(handle), close())
    return handle
  }
  fsp[GUARDED] = true
  // `import { open } from 'node:fs/promises'` reads the patched function from here on.
  syncBuiltinESMExports()
}

const LEAK_WARNING = /Closing file descriptor \d+ on garbage collection/
process.on('warning', (warning) => {
  const code = (warning as { code?: string }).code
  if (code === 'DEP0137' || LEAK_WARNING.test(warning.message)) warnings.push(`${warning.name}: ${warning.message}`)
})

afterAll(async () => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc) {
    // Two rounds: finalizers and Node's close-on-collection warnings run in a task after a collection.
    for (let round = 0; round < 2; round++) {
      gc()
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  if (leaks.length > 0 || warnings.length > 0) {
    const [opened, warned] = [leaks.splice(0), warnings.splice(0)]
    const where = opened.slice(0, 5).join('\n\n') || warned[0]
    throw new Error(`${opened.length} FileHandle(s) left to the garbage collector, ${warned.length} warning(s); close each one:\n${where}`)
  }
})
