/**
 * `botmesh doctor` on Redis, the built binary against real servers: the machine's (whatever its
 * settings, the persistence line must say what a start would do on it), and private servers
 * started here on spare ports with the settings each line is about.
 */
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { makeCertificates, opensslAvailable } from '../../test-utils/tls-certificates.js'
import {
  REDIS_URL,
  redisAvailable,
  redisBinariesAvailable,
  startRedisCluster,
  startRedisServer,
  waitFor,
  type RedisServer,
} from '../../test-utils/redis.js'
import { doctorJson } from './doctor-run.js'
import { botmesh } from './helpers.js'

const REDIS_CHECKS = ['connection', 'persistence', 'maxmemory-policy', 'replication', 'waitReplicas', 'clock', 'version', 'tls', 'cluster']

const machine = await redisAvailable('botmesh doctor on the machine Redis')
const binaries = await redisBinariesAvailable('botmesh doctor on private Redis servers')
const openssl = binaries && (await opensslAvailable('botmesh doctor on a Redis over TLS'))

describe.runIf(machine)('botmesh doctor on the machine Redis', () => {
  it('lists every check, and grades persistence as a start acts on it: a warn, a fail under requirePersistence', async () => {
    const admin = new Redis(REDIS_URL)
    const [, appendonly] = (await admin.config('GET', 'appendonly')) as string[]
    await admin.quit()
    const { run, report, line } = await doctorJson(REDIS_URL)
    expect(report.checks.map((check) => check.name)).toEqual(REDIS_CHECKS)
    expect(report.kind).toBe('redis')
    expect(line('connection').status).toBe('ok')
    expect(report.counts.ok + report.counts.warn + report.counts.fail).toBe(REDIS_CHECKS.length)
    expect(run.code).toBe(report.counts.fail > 0 ? 1 : 0)
    if (appendonly === 'no') {
      // Nothing on disk: the start warns, so the doctor warns, naming appendonly and the option that refuses.
      expect(line('persistence')).toMatchObject({ status: 'warn', found: expect.stringContaining('appendonly is "no"') })
      expect(line('persistence').fix).toContain('requirePersistence')
      const strict = await doctorJson(`${REDIS_URL}?requirePersistence=true`)
      expect(strict.line('persistence')).toMatchObject({ status: 'fail', found: expect.stringContaining('a bot refuses to start') })
      expect(strict.run.code).toBe(1)
      expect(strict.run.stderr).toContain('(CHECK_FAILED)')
    } else {
      // AOF: every fsync policy starts without a warning (everysec and no are said once, at info level).
      expect(line('persistence').status).toBe('ok')
    }
  })

  it('prints one screen of lines with what to set, and its --help has examples', async () => {
    const run = await botmesh(['doctor', '--backend', REDIS_URL])
    for (const name of REDIS_CHECKS) expect(run.stdout).toMatch(new RegExp(`^(ok|WARN|FAIL) +${name} `, 'm'))
    expect(run.stdout).toMatch(/^\d+ ok, \d+ warn, \d+ fail: /m)
    const help = await botmesh(['doctor', '--help'])
    expect(help.stdout).toContain('Examples:')
    expect(help.stdout).toContain('botmesh doctor --backend redis://')
  })
})

describe.runIf(binaries)('botmesh doctor on private Redis servers', () => {
  const servers: RedisServer[] = []
  const start = async (flags: string[]) => {
    const server = await startRedisServer({ flags })
    servers.push(server)
    return server
  }
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()))
  })

  it('AOF with appendfsync always, noeviction, a lone server: every line ok, exit 0', async () => {
    const server = await start(['--appendonly', 'yes', '--appendfsync', 'always'])
    const { run, report } = await doctorJson(server.url)
    expect(report.checks.filter((check) => check.status !== 'ok')).toEqual([])
    expect(report.ok).toBe(true)
    expect(run.code).toBe(0)
  })

  it('maxmemory-policy allkeys-lru: a fail, exit 1; accepted with acceptEviction=true, a warn', async () => {
    const server = await start(['--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'allkeys-lru'])
    const { run, line } = await doctorJson(server.url)
    expect(line('maxmemory-policy')).toMatchObject({ status: 'fail', found: expect.stringContaining('"allkeys-lru"') })
    expect(line('maxmemory-policy').fix).toContain('CONFIG SET maxmemory-policy noeviction')
    expect(run.code).toBe(1)
    const human = await botmesh(['doctor', '--backend', server.url])
    expect(human.stdout).toMatch(/^FAIL +maxmemory-policy +"allkeys-lru"/m)
    expect(human.code).toBe(1)
    const accepted = await doctorJson(`${server.url}?acceptEviction=true`)
    expect(accepted.line('maxmemory-policy').status).toBe('warn')
    expect(accepted.run.code).toBe(0)
  })

  it('CONFIG GET refused: persistence and eviction say they could not be checked (warn), the other lines still run', async () => {
    const server = await start(['--appendonly', 'yes', '--appendfsync', 'always'])
    const admin = new Redis(server.url)
    await admin.call('ACL', 'SETUSER', 'doctor', 'on', '>doctor-pw', '~*', '+@all', '-config')
    await admin.quit()
    const { run, report, line } = await doctorJson(`redis://doctor:doctor-pw@127.0.0.1:${server.port}`)
    expect(line('persistence')).toMatchObject({ status: 'warn', found: expect.stringContaining('could not be checked') })
    expect(line('maxmemory-policy')).toMatchObject({ status: 'warn', found: expect.stringContaining('could not be checked') })
    expect(line('version').status).toBe('ok')
    expect(report.checks.map((check) => check.name)).toEqual(REDIS_CHECKS)
    expect(run.code).toBe(0)
    expect(run.stdout).not.toContain('doctor-pw')
  })

  it('a primary with a replica: the replica listed, waitReplicas not set a warn, in effect ok, over the replicas a fail; the replica itself a fail', async () => {
    const primary = await start(['--appendonly', 'yes', '--appendfsync', 'always'])
    const replica = await start(['--appendonly', 'yes', '--appendfsync', 'always', '--replicaof', '127.0.0.1', String(primary.port)])
    const admin = new Redis(primary.url)
    await waitFor('the replica to be online', async () => /slave0:.*state=online/.test(await admin.info('replication')), 30_000)
    await admin.quit()
    const { run, line } = await doctorJson(primary.url)
    expect(line('replication').found).toContain(`127.0.0.1:${replica.port} online`)
    expect(line('waitReplicas')).toMatchObject({ status: 'warn', found: expect.stringContaining('not set') })
    expect(line('waitReplicas').fix).toContain('waitReplicas')
    expect(run.code).toBe(0)
    const waiting = await doctorJson(`${primary.url}?waitReplicas=1`)
    expect(waiting.line('waitReplicas')).toMatchObject({ status: 'ok', found: expect.stringMatching(/^1: .*\((WAIT|WAITAOF): /) })
    const tooMany = await doctorJson(`${primary.url}?waitReplicas=2`)
    expect(tooMany.line('waitReplicas')).toMatchObject({ status: 'fail', found: expect.stringContaining('1 replica(s) connected') })
    expect(tooMany.run.code).toBe(1)
    const onReplica = await doctorJson(replica.url)
    expect(onReplica.line('replication')).toMatchObject({
      status: 'fail',
      found: expect.stringContaining(`replica of 127.0.0.1:${primary.port}`),
    })
    expect(onReplica.run.code).toBe(1)
  })

  it('a Cluster node named by a one-server URL: the cluster line fails', async () => {
    const node = await startRedisServer({ clusterBus: true, flags: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'] })
    servers.push(node)
    const { run, line } = await doctorJson(node.url)
    expect(line('cluster')).toMatchObject({ status: 'fail', fix: expect.stringContaining('redis+cluster://') })
    expect(run.code).toBe(1)
  })

  it('redis+cluster://: every master read, the cluster line names them, persistence judged on each', async () => {
    const cluster = await startRedisCluster(3)
    try {
      const url = `redis+cluster://${cluster.nodes.map((node) => `${node.host}:${node.port}`).join(',')}`
      const { run, report, line } = await doctorJson(url)
      expect(report.checks.map((check) => check.name)).toEqual(REDIS_CHECKS)
      expect(line('cluster')).toMatchObject({ status: 'ok', found: expect.stringContaining('a Cluster of 3 master(s)') })
      for (const node of cluster.nodes) expect(line('cluster').found).toContain(`:${node.port}`)
      // The private servers run without persistence: a warn naming the masters that have it.
      expect(line('persistence')).toMatchObject({ status: 'warn', found: expect.stringContaining(`:${cluster.nodes[0]!.port}`) })
      expect(run.code).toBe(0)
    } finally {
      await cluster.stop()
    }
  })

  it.runIf(openssl)('rediss://: the tls line names the protocol of the connection', async () => {
    const certificates = await makeCertificates()
    try {
      const { caFile, serverCertFile, serverKeyFile, clientCertFile, clientKeyFile } = certificates
      const server = await startRedisServer({
        flags: ['--appendonly', 'yes', '--appendfsync', 'always'],
        tls: { caFile, certFile: serverCertFile, keyFile: serverKeyFile, clientCertFile, clientKeyFile },
      })
      servers.push(server)
      const { run, line } = await doctorJson(`${server.url}?caFile=${caFile}&certFile=${clientCertFile}&keyFile=${clientKeyFile}`)
      expect(line('tls')).toMatchObject({ status: 'ok', found: expect.stringMatching(/^TLSv1\.[23] to every node$/) })
      expect(run.code).toBe(0)
    } finally {
      certificates.remove()
    }
  })

  it('a server that does not answer: one connection line, a fail, exit 1', async () => {
    const server = await start([])
    const url = server.url
    await server.stop()
    servers.splice(servers.indexOf(server), 1)
    const { run, report } = await doctorJson(url)
    expect(report.checks).toEqual([expect.objectContaining({ name: 'connection', status: 'fail' })])
    expect(run.code).toBe(1)
  })
})
