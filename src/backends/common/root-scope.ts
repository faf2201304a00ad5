/**
 * The scope of a `DurableKv` that is not a view: what `kv.scope(id)` narrows from. Every backend
 * stores the root's entries under this scope id, so a journal written by one reads the same in
 * another.
 */
export const ROOT_SCOPE = ''
