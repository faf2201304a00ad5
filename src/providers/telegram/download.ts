/**
 * A file download over HTTP with a size bound and a timeout. The URL holds the bot token, so no
 * error message quotes it.
 */
import { MediaDownloadError } from '../shared/errors.js'
import { redact, redactedCause } from '../shared/redact.js'

/** Fetches `url`; refuses a body over `bytesMax`; errors never carry `token`. */
export async function downloadFile(url: string, options: { signal: AbortSignal; token: string; bytesMax: number }): Promise<Buffer> {
  let response: Response
  try {
    response = await fetch(url, { signal: options.signal })
  } catch (error) {
    throw new MediaDownloadError(
      'telegram',
      redact(`the file request failed: ${error instanceof Error ? error.message : String(error)}`, [options.token]),
      { retryable: true, cause: redactedCause(error, [options.token]) },
    )
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw new MediaDownloadError('telegram', `the file server answered ${response.status}`, {
      status: response.status,
      retryable: response.status >= 500,
    })
  }
  const declared = Number(response.headers.get('content-length') ?? 0)
  if (declared > options.bytesMax) {
    await response.body?.cancel()
    throw new MediaDownloadError('telegram', `the file is ${declared} bytes, over the limit of ${options.bytesMax}`)
  }
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length
    if (size > options.bytesMax) throw new MediaDownloadError('telegram', `the file is over the limit of ${options.bytesMax} bytes`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}
