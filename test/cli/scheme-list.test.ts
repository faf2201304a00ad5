// The unknown-scheme error lists every scheme a backend URL takes (issue 44, list 7).
import { describe, expect, it } from 'vitest'
import { parseBackendUrl } from '../../src/operator/gateway/open.js'

describe('an unknown backend scheme', () => {
  it('names every scheme botmesh reads', () => {
    let message = ''
    try {
      parseBackendUrl('foo://somewhere')
    } catch (error) {
      message = (error as Error).message
    }
    for (const scheme of [
      'sqlite:',
      'file:',
      'events:',
      'events+shared:',
      'redis://',
      'rediss://',
      'redis+cluster://',
      'rediss+cluster://',
      'redis+sentinel://',
      'postgres://',
      'postgresql://',
    ])
      expect(message).toContain(scheme)
  })
})
