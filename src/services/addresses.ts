/**
 * Client addresses: lists of addresses and CIDRs (trusted proxies), the address a request comes
 * from behind such proxies, and the key a client is throttled by.
 */
import net from 'node:net';

/**
 * `net.isIP`'s answer (0, 4 or 6), asked of the system's address parser (inet_pton, through
 * `net.SocketAddress`) first: `net.isIP` tests Node's regular expressions, and V8 compiles the
 * IPv6 one on its first use, 3-6 ms that every start paid here (`fm serve` checks
 * --trusted-proxies before it listens). A zone id (`fe80::1%eth0`) and what the parser refuses
 * still go to `net.isIP`, so the answers are the same (a unit test compares them).
 */
export function ipVersion(addr: string): 0 | 4 | 6 {
  // libuv's parser drops any `%…` suffix, the expression takes only some zone ids: those go to net.isIP.
  if (addr.includes('%')) return net.isIP(addr) as 0 | 4 | 6;
  const family = addr.includes(':') ? 'ipv6' : 'ipv4';
  try {
    new net.SocketAddress({ address: addr, family });
    return family === 'ipv6' ? 6 : 4;
  } catch {
    return net.isIP(addr) as 0 | 4 | 6;
  }
}

/** Builds a list from `addr` and `addr/bits` entries (IPv4 or IPv6); throws on a bad entry. */
export function buildBlockList(entries: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const raw of entries) {
    const e = raw.trim();
    if (!e) continue;
    const [addr, bits, extra] = e.split('/');
    const version = ipVersion(addr);
    const type = version === 6 ? 'ipv6' : 'ipv4';
    const max = type === 'ipv6' ? 128 : 32;
    if (!version || extra !== undefined || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= max))) {
      throw new Error(`invalid trusted proxy address "${e}" (use an address or a CIDR such as 10.0.0.0/8)`);
    }
    if (bits !== undefined) list.addSubnet(addr, Number(bits), type);
    else list.addAddress(addr, type);
  }
  return list;
}

/** Whether an address (IPv4-mapped IPv6 included) is in the list. */
export function isInList(list: net.BlockList, ip: string): boolean {
  const addr = plainAddress(ip);
  const version = ipVersion(addr);
  if (!version) return false;
  return list.check(addr, version === 6 ? 'ipv6' : 'ipv4');
}

/** An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) as the IPv4 address it is; others unchanged. */
export function plainAddress(ip: string): string {
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1] ?? ip;
}

/**
 * The address a request comes from. Only when the peer is a trusted proxy are the addresses it
 * forwarded believed: X-Forwarded-For (else Forwarded) is read from the right, each trusted hop
 * is skipped, and the first untrusted address is the client. Entries left of it were written
 * by the client and are never read. An entry that is not an address stops the walk at the last
 * address that could be trusted.
 */
export function forwardedClient(
  peer: string,
  headers: { 'x-forwarded-for'?: string | string[]; forwarded?: string | string[] },
  trusted: (ip: string) => boolean,
): string {
  let client = plainAddress(peer);
  if (!trusted(client)) return client;
  const hops = forwardedHops(headers);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    if (!hop) return client;
    client = hop;
    if (!trusted(hop)) return hop;
  }
  return client;
}

/** The forwarded addresses, left (client side) to right (nearest proxy); undefined for an entry that is no address. */
function forwardedHops(headers: { 'x-forwarded-for'?: string | string[]; forwarded?: string | string[] }): Array<string | undefined> {
  const join = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(',') : (v ?? ''));
  const xff = join(headers['x-forwarded-for']);
  if (xff.trim()) return xff.split(',').map((e) => parseHop(e));
  const forwarded = join(headers.forwarded);
  if (!forwarded.trim()) return [];
  return forwarded.split(',').map((element) => {
    const pair = element.split(';').find((p) => p.trim().toLowerCase().startsWith('for='));
    return pair ? parseHop(pair.trim().slice(4)) : undefined;
  });
}

/** `1.2.3.4`, `1.2.3.4:5678`, `"[2001:db8::1]:4711"`, `2001:db8::1` → the address; anything else undefined. */
function parseHop(raw: string): string | undefined {
  let v = raw.trim().replace(/^"(.*)"$/, '$1');
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(v);
  if (bracketed) v = bracketed[1];
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(v)) v = v.slice(0, v.indexOf(':'));
  v = plainAddress(v);
  return ipVersion(v) ? v : undefined;
}

/**
 * The address a client is throttled by: an IPv4 address as is, an IPv6 address by its /64
 * (one host usually owns a whole /64, so per-address limits would be trivial to dodge).
 */
export function addressKey(ip: string): string {
  const addr = plainAddress(ip);
  if (ipVersion(addr) !== 6) return addr;
  const [head, tail = ''] = addr.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = addr.includes('::') ? [...h, ...Array(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t] : h;
  return `${groups
    .slice(0, 4)
    .map((g) => (parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}
