/** A small seeded PRNG (mulberry32): one seed drives the crash point, the timing and the ids of a run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** An integer in [min, max] from a seeded random. */
export function pick(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1))
}

/**
 * A number in [0, 1) drawn from the seed and a label alone (FNV-1a of both, then one mulberry32
 * step): for a choice whose number of draws depends on timing (which messages were acknowledged
 * before a crash), so it shifts no other draw of the same seed.
 */
export function seededDraw(seed: number, label: string): number {
  let hash = 0x811c9dc5
  for (const char of `${seed >>> 0}:${label}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0
  return seededRandom(hash)()
}
