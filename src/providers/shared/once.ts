/**
 * A channel's client package (or a client built from it) loads on first use and is kept; a load
 * that failed is not kept, so installing the missing package and calling again works without a
 * new provider.
 */

/** `load`, called once and its promise kept, unless it rejected: then the next call loads again. */
export function loadedOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined
  return () => {
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined
      throw error
    })
    return loaded
  }
}
