/**
 * A TCP proxy in front of a real server (PostgreSQL, Redis), so a test can take the server away
 * from the dashboard and give it back without stopping the machine's server: `down()` closes the
 * listener and cuts every connection (new ones are refused), `up()` listens again on the same port.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  readonly port: number
  down(): Promise<void>
  up(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host)
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on('close', () => sockets.delete(socket))
          socket.on('error', () => {})
        }
        client.pipe(upstream).pipe(client)
        client.on('close', () => upstream.destroy())
        upstream.on('close', () => client.destroy())
      })
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port
        resolve()
      })
    })
  const down = async () => {
    const closing = server
    server = undefined
    for (const socket of sockets) socket.destroy()
    sockets.clear()
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()))
  }
  await listen()
  return {
    get port() {
      return port
    },
    down,
    up: () => (server ? Promise.resolve() : listen()),
    close: down,
  }
}
