/** The dashboard's text filter: a record shows when any of its fields contains the text, ignoring case. */

/** Whether any field contains `text` (case-insensitive); an empty text matches everything. */
export function matchesText(text: string, fields: readonly (string | null | undefined)[]): boolean {
  const needle = text.trim().toLowerCase()
  if (needle === '') return true
  return fields.some((field) => field !== null && field !== undefined && field.toLowerCase().includes(needle))
}
