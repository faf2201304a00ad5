/**
 * A search's fragment as a SQL LIKE pattern (`ESCAPE '\'`), for the stores that search in the
 * database (SQLite, PostgreSQL): `%`, `_` and `\` match literally, and the text is never part of
 * the statement (it is bound as a parameter). Both databases lowercase only ASCII letters
 * everywhere (SQLite's lower(); PostgreSQL's under the C collation), so a character past ASCII
 * matches any run of characters: the pattern finds a superset of the matches, never fewer, and
 * the journal above keeps the records that hold the text.
 */

/** `%fragment%`, escaped for LIKE … ESCAPE '\', over a value lowercased by the database. */
export function likeContaining(fragment: string): string {
  let pattern = '%'
  for (const char of fragment.toLowerCase()) {
    if (char === '%' || char === '_' || char === '\\') pattern += `\\${char}`
    else pattern += char.charCodeAt(0) > 0x7f ? '%' : char
  }
  return `${pattern}%`
}
