/**
 * `CrashableProvider`: a MockProvider that dies with a crashable backend. Once the backend has
 * crashed, its sends never settle; a send the channel accepted just before the crash stays in
 * `sent`, as a real channel would have delivered it.
 */
import type { OutboundContent, ProviderSendResult } from '../core/provider/provider.js'
import type { CrashableBackend } from './crashable.js'
import { MockProvider, type MockProviderOptions } from './mock-provider.js'

export class CrashableProvider extends MockProvider {
  constructor(
    private readonly crashableBackend: CrashableBackend,
    options: MockProviderOptions = {},
  ) {
    super(options)
  }

  override async send(chatId: string, content: OutboundContent): Promise<ProviderSendResult> {
    if (this.crashableBackend.crashed) return new Promise(() => {})
    const result = await super.send(chatId, content)
    if (this.crashableBackend.crashed) return new Promise(() => {})
    return result
  }

  override async receive(event: Parameters<MockProvider['receive']>[0]): Promise<void> {
    if (this.crashableBackend.crashed) return new Promise(() => {})
    return super.receive(event)
  }
}
