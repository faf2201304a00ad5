/**
 * grammY, loaded only when a Telegram provider starts or sends: `import 'botmesh/core'` (and even
 * `import 'botmesh/providers/telegram'`) never loads it. A missing package fails with a sentence
 * that says what to install.
 */
import type { Api, InputFile } from 'grammy'
import { loadDriver } from '../shared/driver.js'

/** grammY types its signals with an AbortController shim; Node's own AbortSignal is what it gets at run time. */
export type ApiSignal = Parameters<Api['getFile']>[1]

/** Node's AbortSignal as grammY's parameter type. */
export const apiSignal = (signal: AbortSignal): ApiSignal => signal as unknown as ApiSignal

/** The parts of grammY the transport uses. */
export interface Grammy {
  api: Api
  InputFile: typeof InputFile
}

/** Loads grammY and makes an API client for `token` against `apiRoot`. */
export async function loadGrammy(token: string, apiRoot: string, timeoutMs: number): Promise<Grammy> {
  const grammy = await loadDriver('telegram', 'grammy', () => import('grammy'))
  // The client's timeout must outlast a long poll, which waits up to its own timeout on the server.
  const api = new grammy.Api(token, { apiRoot, timeoutSeconds: Math.ceil(timeoutMs / 1000) })
  return { api, InputFile: grammy.InputFile }
}
