/**
 * `@discordjs/rest` and `@discordjs/ws` (Discord's own modular clients, which discord.js is built
 * on), loaded only when a Discord provider starts or sends. The REST client is told to reject a
 * rate limit instead of waiting inside the call, and not to retry: the outbox owns both, so a
 * `RateLimitedError` waits its `retryAfterMs` and a retry is journaled like any other.
 */
import type { REST } from '@discordjs/rest'
import type { SessionInfo, WebSocketManager } from '@discordjs/ws'
import { loadDriver } from '../shared/driver.js'

/** A REST client for a bot token. */
export async function loadRest(options: { token: string; api: string; timeoutMs: number }): Promise<REST> {
  const rest = await loadDriver('discord', '@discordjs/rest', () => import('@discordjs/rest'))
  return new rest.REST({ api: options.api, timeout: options.timeoutMs, retries: 0, rejectOnRateLimit: () => true }).setToken(options.token)
}

/** A gateway connection (one shard) that keeps its session in its own map, never in a process-wide store. */
export async function loadGateway(options: { token: string; intents: number; api: string; timeoutMs: number }): Promise<WebSocketManager> {
  const [ws, rest] = await Promise.all([
    loadDriver('discord', '@discordjs/ws', () => import('@discordjs/ws')),
    loadDriver('discord', '@discordjs/rest', () => import('@discordjs/rest')),
  ])
  const sessions = new Map<number, SessionInfo>()
  return new ws.WebSocketManager({
    token: options.token,
    intents: options.intents,
    // The gateway's own lookup (GET /gateway/bot) may wait out a rate limit: it is not a send.
    rest: new rest.REST({ api: options.api, timeout: options.timeoutMs }).setToken(options.token),
    shardCount: 1,
    retrieveSessionInfo: (shardId) => sessions.get(shardId) ?? null,
    updateSessionInfo: (shardId, info) => void (info ? sessions.set(shardId, info) : sessions.delete(shardId)),
  })
}
