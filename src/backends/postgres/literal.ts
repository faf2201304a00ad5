/**
 * Turns a parameterised statement into one with literal values, so that several statements can
 * travel in one simple-protocol message (one round trip, one transaction). The statements come
 * from statements.ts, where `$` appears only as a parameter marker, and every parameter carries
 * an explicit cast there, so a quoted literal takes the same type a bound parameter would.
 */

/** A value a write statement binds. */
export type SqlValue = string | number | boolean | null

/** Replaces `$n` with the n-th value as an SQL literal. */
export function inlineParameters(sql: string, values: readonly SqlValue[]): string {
  return sql.replace(/\$(\d+)/g, (_, position: string) => {
    const index = Number(position) - 1
    if (index < 0 || index >= values.length)
      throw new RangeError(`the statement uses $${position} but only ${values.length} values were given`)
    return literal(values[index]!)
  })
}

/** One value as an SQL literal. */
export function literal(value: SqlValue): string {
  if (value === null) return 'NULL'
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`cannot write ${value} as an SQL literal`)
    return `'${String(value)}'`
  }
  return quoteString(value)
}

/**
 * Quotes a string: quotes doubled, and with a backslash in it the E'' form with backslashes
 * doubled, so the result reads the same whatever `standard_conforming_strings` is.
 */
export function quoteString(text: string): string {
  if (text.includes('\u0000')) throw new RangeError('PostgreSQL text cannot hold a NUL character')
  const quoted = text.replace(/'/g, "''")
  if (!quoted.includes('\\')) return `'${quoted}'`
  return `E'${quoted.replace(/\\/g, '\\\\')}'`
}
