/**
 * A file download from the Bot API's file URL, under the download policy (`shared/download.ts`):
 * HTTPS to `api.telegram.org`, or the configured `apiRoot` exactly (a local Bot API server, a test
 * double), bounded in size and time. The URL holds the bot token, so no error message quotes it.
 */
import { fetchMedia } from '../shared/download.js'

/** The host the Bot API serves files from. */
const TELEGRAM_FILE_HOSTS = ['api.telegram.org']

/** Fetches `url`; refuses a body over `bytesMax` or a download over `timeoutMs`; errors never carry `token`. */
export function downloadFile(
  url: string,
  options: { apiRoot: string; timeoutMs: number; token: string; bytesMax: number },
): Promise<Buffer> {
  return fetchMedia({ channel: 'telegram', timeoutMs: options.timeoutMs, secrets: [options.token] }, url, {
    hosts: TELEGRAM_FILE_HOSTS,
    trustedOrigins: [new URL(options.apiRoot).origin],
    bytesMax: options.bytesMax,
  })
}
