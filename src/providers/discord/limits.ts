/** Discord's limits and the transport's defaults, named once. */
export const DISCORD_LIMITS = {
  /** The longest message content. @default 2000 */
  textLimit: 2000,
  /** Buttons on one message (five action rows of five). @default 25 */
  buttonsMax: 25,
  /** Buttons in one action row. @default 5 */
  buttonsPerRowMax: 5,
  /** The longest button label. @default 80 */
  buttonLabelMax: 80,
  /** The longest button `custom_id`. @default 100 */
  customIdMax: 100,
  /** The largest attachment a download accepts (Discord's largest upload, on boosted servers). @default 500 MiB */
  downloadBytesMax: 500 * 1024 * 1024,
  /** The longest a REST call or a download may take. @default 30 s */
  requestTimeoutMs: 30_000,
  /** The largest interactions webhook body accepted. @default 256 KiB */
  webhookBodyBytesMax: 256 * 1024,
} as const

/** Gateway intents: guild and direct messages, and their content (a privileged intent to enable for the bot). */
export const DISCORD_INTENTS_DEFAULT = (1 << 9) | (1 << 12) | (1 << 15)

/** The REST API root. @default 'https://discord.com/api' */
export const DISCORD_API_DEFAULT = 'https://discord.com/api'
