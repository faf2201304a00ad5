/**
 * The Redis scripts are kept as Lua (src/backends/redis/lua/*.lua) and built into a module of
 * strings: the committed module is what the .lua files make, so an edit to a script cannot ship
 * without it, and every script names its KEYS and ARGV in its header.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { GENERATED, LUA_DIR, luaSourcesModule } from '../../scripts/lua-sources.mjs'
import { SCRIPTS, STEPS, STEP_FILES } from '../../src/backends/redis/scripts.js'

describe('the Redis scripts as Lua files', () => {
  it('the generated module is what the .lua files make (run npm run build after editing one)', () => {
    expect(readFileSync(GENERATED as string, 'utf8')).toBe((luaSourcesModule as () => string)())
  })

  it("every script is a .lua file headed by its KEYS and ARGV, and every .lua file is a script, helpers, or a part of the steps' script", () => {
    const files = readdirSync(LUA_DIR as string).filter((file) => file.endsWith('.lua'))
    const parts = STEP_FILES.map((name) => `${name}.lua`)
    expect(files.sort()).toEqual([...SCRIPTS.map((script) => `${script.name}.lua`), 'helpers.lua', ...parts].sort())
    for (const part of parts) expect(STEPS.lua).toContain(readFileSync(join(LUA_DIR as string, part), 'utf8'))
    for (const script of SCRIPTS) {
      const header = readFileSync(join(LUA_DIR as string, `${script.name}.lua`), 'utf8').split('\n\n')[0]!
      expect(header, script.name).toMatch(/^-- .*KEYS/s)
      expect(script.lua).toContain(header)
    }
  })
})
