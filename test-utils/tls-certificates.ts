/**
 * Certificates for TLS tests, made by the `openssl` CLI in a temp dir: a CA, a server certificate
 * it signs (for 127.0.0.1 and localhost), a client certificate it signs, and a second CA nobody
 * trusts. Short-lived and thrown away with the dir.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The files made, all PEM. */
export interface TestCertificates {
  dir: string
  /** The CA that signed the server's and the client's certificates. */
  caFile: string
  /** Another CA, that signed nothing botmesh is shown. */
  otherCaFile: string
  serverCertFile: string
  serverKeyFile: string
  clientCertFile: string
  clientKeyFile: string
  remove(): void
}

/** Whether `openssl` is installed; off CI a missing one is a loud line and `false`, under CI=true it throws. */
export async function opensslAvailable(what: string): Promise<boolean> {
  try {
    await run('openssl', ['version'])
    return true
  } catch (error) {
    const reason = `openssl is not installed (${error instanceof Error ? error.message : String(error)})`
    if (process.env.CI === 'true') throw new Error(`${what}: ${reason}; CI=true, so this fails instead of skipping`)
    console.warn(`\n!!!!!!!! SKIPPED ${what}: ${reason}. Under CI=true this fails. !!!!!!!!\n`)
    return false
  }
}

/**
 * Makes the certificates. The server's names `serverNames` (subjectAltName entries, e.g.
 * `IP:127.0.0.1`); the client's common name is `clientName` (a PostgreSQL user for `cert` auth).
 */
export async function makeCertificates(options: { serverNames?: string[]; clientName?: string } = {}): Promise<TestCertificates> {
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-tls-'))
  const file = (name: string) => join(dir, name)
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir, timeout: 60_000 })
  try {
    const selfSigned = (name: string, subject: string) =>
      openssl(
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        subject,
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.crt`,
      )
    await selfSigned('ca', '/CN=botmesh test CA')
    await selfSigned('other-ca', '/CN=botmesh untrusted CA')
    const signed = async (name: string, subject: string, extensions: string) => {
      writeFileSync(file(`${name}.ext`), extensions)
      await openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', subject, '-keyout', `${name}.key`, '-out', `${name}.csr`)
      await openssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-days',
        '2',
        '-extfile',
        `${name}.ext`,
        '-out',
        `${name}.crt`,
      )
    }
    const names = options.serverNames ?? ['IP:127.0.0.1', 'DNS:localhost']
    await signed('server', '/CN=botmesh test server', `subjectAltName=${names.join(',')}\nextendedKeyUsage=serverAuth\n`)
    await signed('client', `/CN=${options.clientName ?? 'botmesh'}`, 'extendedKeyUsage=clientAuth\n')
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return {
    dir,
    caFile: file('ca.crt'),
    otherCaFile: file('other-ca.crt'),
    serverCertFile: file('server.crt'),
    serverKeyFile: file('server.key'),
    clientCertFile: file('client.crt'),
    clientKeyFile: file('client.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}
