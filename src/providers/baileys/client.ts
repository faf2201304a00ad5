/**
 * `baileys` (WhatsApp Web over its multi-device WebSocket protocol), loaded only when a Baileys
 * provider starts. The provider holds a socket through the part of the library's `WASocket` it
 * uses, so a socket built another way (a test double of the library's events) is held the same.
 */
import type { UserFacingSocketConfig, WASocket } from 'baileys'
import { loadDriver } from '../shared/driver.js'

/** The library's module. */
export type BaileysModule = typeof import('baileys')

/** The part of a WhatsApp Web socket the provider uses, in the library's own types. */
export type BaileysSocket = Pick<WASocket, 'ev' | 'sendMessage' | 'readMessages' | 'updateMediaMessage' | 'onWhatsApp' | 'end'>

/** Builds a socket from the library's configuration. @default the library's `makeWASocket` */
export type BaileysSocketFactory = (config: UserFacingSocketConfig) => BaileysSocket

/** The release line the provider is built and tested against (npm's `latest` tag is still 6.x). */
export const BAILEYS_VERSION = '^7.0.0-rc14'

/** Loads the library; a missing one is one line naming what to install. */
export function loadBaileys(): Promise<BaileysModule> {
  return loadDriver('baileys', 'baileys', () => import('baileys'), BAILEYS_VERSION)
}

/** The library's logger interface. */
export type BaileysLogger = NonNullable<UserFacingSocketConfig['logger']>

/** A silent logger: the library logs through pino at `info` otherwise. */
export function silentLogger(): BaileysLogger {
  const nothing = () => undefined
  const logger: BaileysLogger = {
    level: 'silent',
    trace: nothing,
    debug: nothing,
    info: nothing,
    warn: nothing,
    error: nothing,
    child: () => logger,
  }
  return logger
}
