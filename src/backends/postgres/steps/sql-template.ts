/**
 * The steps' SQL (record-functions.ts, steps-function.ts, take-back-function.ts) is text with
 * `{{tokens}}` for the names and constants it uses, filled here from the table's names and the
 * TypeScript constants, in one place: the SQL reads as SQL, and a rule's constant is never written
 * twice (the unfinished states come from step-rules.ts).
 */
import { UNFINISHED_STATES } from '../../../core/durability/steps/step-rules.js'
import { COUNTER_COLLECTION_PREFIX } from '../counters.js'
import { POSTGRES_LIMITS } from '../limits.js'
import type { DurableTables } from '../tables.js'
import { RECORD_FUNCTIONS_SQL } from './record-functions.js'
import { CHAT_COLLECTION, STEPS_FUNCTION_SQL } from './steps-function.js'
import { TAKE_BACK_FUNCTION_SQL } from './take-back-function.js'

/** The DDL of the steps' functions for a table: created with the schema (schema.ts). */
export function stepsSchemaSql(t: DurableTables): string {
  const values: Record<string, string> = {
    ...t.steps,
    table: t.durable,
    durable_name: t.durableName,
    chats: CHAT_COLLECTION,
    counts: COUNTER_COLLECTION_PREFIX,
    count_shards: String(POSTGRES_LIMITS.countShards),
    unfinished: `(${[...UNFINISHED_STATES].map((state) => `'${state}'`).join(', ')})`,
  }
  return [RECORD_FUNCTIONS_SQL, STEPS_FUNCTION_SQL, TAKE_BACK_FUNCTION_SQL].join('\n').replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name]
    if (value === undefined) throw new Error(`the steps' SQL names {{${name}}}, which nothing fills`)
    return value
  })
}
