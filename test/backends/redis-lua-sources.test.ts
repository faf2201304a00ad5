/**
 * The Redis scripts are kept as Lua (src/backends/redis/lua/*.lua) and built into a module of
 * strings: the committed module is what the .lua files make, so an edit to a script cannot ship
 * without it, and every script names its KEYS and ARGV in its header. Every command a script runs is
 * in the ACL user of docs/security.md (the server checks a script's commands against it: the steps'
 * HSCAN and HEXISTS were missing, and that user's bot failed on the steps engine).
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

  it('every command a script runs is granted to the ACL user of docs/security.md', () => {
    const security = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8')
    const acl = security.split('\n').find((line) => line.startsWith('ACL SETUSER botmesh '))!
    const granted = new Set([...acl.matchAll(/ \+([a-z|]+)/g)].map((match) => match[1]!))
    const lua = readdirSync(LUA_DIR as string)
      .filter((file) => file.endsWith('.lua'))
      .map((file) => readFileSync(join(LUA_DIR as string, file), 'utf8'))
      .join('\n')
    // redis.call('HGET', …) and the helpers' chunked('HMGET', …).
    const used = new Set([...lua.matchAll(/(?:redis\.p?call|chunked)\('([A-Za-z]+)'/g)].map((match) => match[1]!.toLowerCase()))
    expect(used.size).toBeGreaterThan(10)
    expect([...used].filter((command) => !granted.has(command))).toEqual([])
  })
})
