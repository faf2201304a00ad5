/**
 * Which network addresses a media download may connect to. A sender chooses the URL of live media,
 * and a journal may have been edited, so a download must not reach the bot's own network: loopback,
 * private, link-local (the cloud metadata services at 169.254.169.254 and fd00:ec2::254 among them),
 * shared, multicast and reserved ranges are refused. The check runs on the address the connection
 * is made to (a custom `lookup`), so a public-looking name that resolves there is refused too.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { BlockList, isIP } from 'node:net'

/** The ranges no media download may connect to, by family. */
const NON_PUBLIC = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier NAT; Alibaba's metadata at 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (AWS, GCP and Azure metadata at 169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const)
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4')
// Azure's wire server and metadata endpoint, on a public address.
NON_PUBLIC.addAddress('168.63.129.16', 'ipv4')
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64: reaches an IPv4 address the check below did not see
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (AWS's IPv6 metadata at fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6')

/** Why `address` (an IPv4 or IPv6 address, no brackets) may not be connected to, or undefined when it may. */
export function addressProblem(address: string): string | undefined {
  const family = isIP(address)
  if (family === 0) return `${address} is not an IP address`
  // An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) reaches the IPv4 address it maps.
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1]
  if (mapped !== undefined) return addressProblem(mapped)
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address)
  if (hex) {
    const high = parseInt(hex[1]!, 16)
    const low = parseInt(hex[2]!, 16)
    return addressProblem(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`)
  }
  if (NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6')) return `${address} is not a public address`
  return undefined
}

/** The error a refused address gives the connection (the download turns it into its refusal). */
export class AddressRefusedError extends Error {
  readonly code = 'ADDRESS_REFUSED'
  constructor(
    readonly hostname: string,
    readonly detail: string,
  ) {
    super(`${hostname} resolves to ${detail}`)
    this.name = 'AddressRefusedError'
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `lookup` for `net.connect` / `https.request` that resolves as `dns.lookup` does and refuses the
 * connection when any address the name resolves to is not public: the address checked is the one
 * connected to, so DNS cannot point a checked name elsewhere afterwards.
 */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, [])
    const refused = addresses.map((entry) => addressProblem(entry.address)).find((problem) => problem !== undefined)
    if (refused !== undefined) return callback(new AddressRefusedError(hostname, refused) as NodeJS.ErrnoException, [])
    if (options.all) return callback(null, addresses)
    const first = addresses[0]
    if (!first) return callback(new AddressRefusedError(hostname, 'no address') as NodeJS.ErrnoException, [])
    callback(null, first.address, first.family)
  })
}
