/**
 * `promise`, with `after` run once it settles, its outcome kept: one then(), where finally() makes
 * three promises (each one costs more while async context tracking is on).
 */
export function afterSettled<T>(promise: Promise<T>, after: () => void): Promise<T> {
  return promise.then(
    (value) => {
      after()
      return value
    },
    (error: unknown) => {
      after()
      throw error
    },
  )
}
