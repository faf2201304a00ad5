/**
 * Small validators for stored values: each answers why a field is not valid, or undefined. They
 * refuse extra fields too, so a stored value holds exactly what its channel journals.
 */
import type { Json } from '../../core/provider/provider.js'
import { MEDIA_REF_LIMITS } from './limits.js'

/** A field's validator: why the value is not valid, or undefined. */
export type FieldCheck = (value: Json | undefined) => string | undefined

/** Validates an object field by field; any field not named is refused. */
export function objectProblem(
  data: Json | undefined,
  fields: { [name: string]: FieldCheck },
  optional: readonly string[] = [],
): string | undefined {
  if (data === null || data === undefined || typeof data !== 'object' || Array.isArray(data)) return 'not an object'
  for (const key of Object.keys(data)) if (!(key in fields)) return `unexpected field "${key}"`
  for (const [name, check] of Object.entries(fields)) {
    const value = data[name]
    if (value === undefined && optional.includes(name)) continue
    const problem = check(value)
    if (problem !== undefined) return `${name}: ${problem}`
  }
  return undefined
}

/** A string matching `pattern`, at most `max` characters. */
export function stringField(pattern: RegExp, max: number = MEDIA_REF_LIMITS.idLengthMax): FieldCheck {
  return (value) => {
    if (typeof value !== 'string') return 'not a string'
    if (value.length === 0 || value.length > max) return `empty or longer than ${max} characters`
    return pattern.test(value) ? undefined : `does not match ${pattern}`
  }
}

/** An integer in [min, max]. */
export function integerField(min: number, max: number): FieldCheck {
  return (value) =>
    typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? undefined : `not an integer in [${min}, ${max}]`
}

/** A boolean. */
export const booleanField: FieldCheck = (value) => (typeof value === 'boolean' ? undefined : 'not a boolean')

/** One of `values`. */
export function oneOfField(values: readonly string[]): FieldCheck {
  return (value) => (typeof value === 'string' && values.includes(value) ? undefined : `not one of ${values.join(', ')}`)
}

/** A nested object validated by `objectProblem`. */
export function objectField(fields: { [name: string]: FieldCheck }, optional: readonly string[] = []): FieldCheck {
  return (value) => objectProblem(value, fields, optional)
}

/** Reads a property of an unknown value (a live token), or undefined. */
export function prop(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined
}

/** Base64 of bytes (a Buffer, a Uint8Array) or a base64 string as it is; undefined otherwise. */
export function base64Of(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64')
  return undefined
}
