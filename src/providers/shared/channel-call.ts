/**
 * A call through a channel's client library, whose failures the library throws in its own shape:
 * each is thrown again as the channel maps it (the outbox's error classes, the token cut), so no
 * raw library error leaves a provider.
 */

/** What `call` resolves, or its failure as `errorOf` maps it. */
export async function channelCall<T>(call: () => Promise<T>, errorOf: (error: unknown) => Error): Promise<T> {
  try {
    return await call()
  } catch (error) {
    throw errorOf(error)
  }
}
