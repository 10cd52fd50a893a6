import ipaddr from 'ipaddr.js';

// Which addresses svc may send to on its own accord: public unicast only. The ranges come from
// ipaddr.js (the table proxy-addr, and with it Fastify, uses); svc adds the IPv6 forms that carry
// an IPv4 address inside, so that ::ffff:127.0.0.1 or 64:ff9b::a9fe:a9fe is judged as the address
// it reaches. docs/outbound.md.

/**
 * Why svc refuses to connect to `ip` (`loopback`, `private`, `linkLocal`, …), or undefined when it
 * is a public unicast address. `ip` must be a literal (what DNS answered, or a URL's host);
 * anything that does not parse is refused as `invalid`.
 */
export function refusedRange(ip: string): string | undefined {
  if (!ipaddr.isValid(ip)) return 'invalid';
  const a = ipaddr.parse(ip);
  if (a.kind() === 'ipv4') return v4Refused(a as ipaddr.IPv4);
  return v6Refused(a as ipaddr.IPv6);
}

function v4Refused(a: ipaddr.IPv4): string | undefined {
  const range = a.range();
  // 0/8, 127/8, 10/8, 172.16/12, 192.168/16, 169.254/16 (the cloud metadata service), 100.64/10,
  // multicast, broadcast and the reserved and documentation blocks: everything but public unicast
  return range === 'unicast' ? undefined : range;
}

function v6Refused(a: ipaddr.IPv6): string | undefined {
  const range = a.range();
  // ::a.b.c.d (IPv4-compatible, deprecated) is unicast to ipaddr.js, yet no public host has one
  if (range === 'unicast') return a.parts.slice(0, 6).every((p) => p === 0) ? 'ipv4Compatible' : undefined;
  // ::ffff:a.b.c.d and ::ffff:0:a.b.c.d reach the IPv4 address itself; 64:ff9b::/96 (NAT64) and
  // 2002::/16 (6to4) reach it through a translator: judge the IPv4 address they carry
  if (range === 'ipv4Mapped' || range === 'rfc6145') return v4Refused(v4At(a, 12));
  if (range === 'rfc6052') return a.parts[2] === 0 ? v4Refused(v4At(a, 12)) : range;
  if (range === '6to4') return v4Refused(v4At(a, 2));
  return range;
}

/** The 32 bits at byte `offset` of `a`, as an IPv4 address. */
function v4At(a: ipaddr.IPv6, offset: number): ipaddr.IPv4 {
  const b = a.toByteArray();
  return new ipaddr.IPv4(b.slice(offset, offset + 4));
}

/** `a` with an IPv4-mapped IPv6 address (::ffff:10.0.0.1) written as the IPv4 address it is. */
export function normalizedAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!ipaddr.isValid(ip)) return undefined;
  const a = ipaddr.parse(ip);
  if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) return (a as ipaddr.IPv6).toIPv4Address();
  return a;
}
