import ipaddr from 'ipaddr.js';
import { normalizedAddress } from './address.js';

// SVC_OUTBOUND_ALLOW: the destinations an operator lets svc reach although their addresses are not
// public (an internal chat server, a webhook relay on the same host). docs/outbound.md.

/** Destinations allowed whatever their address. Immutable; shared by every outbound call. */
export interface AllowList {
  /** Lowercase host names without a trailing dot; `*.corp.example` allows every name under it. */
  readonly hosts: readonly string[];
  /** Address ranges; a single address is a /32 or /128. */
  readonly ranges: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

export const NO_ALLOW: AllowList = Object.freeze({ hosts: [], ranges: [] });

const HOST = /^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/**
 * Parses a list of host names, addresses and CIDR ranges separated by commas or spaces
 * (`hooks.corp.example, *.svc.cluster.local, 10.20.0.0/16, 127.0.0.1, ::1`). Throws an Error
 * naming the first entry that is none of these.
 */
export function parseAllowList(text: string | undefined): AllowList {
  const hosts: string[] = [];
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const raw of (text ?? '').split(/[\s,]+/).filter((e) => e.length > 0)) {
    const entry = raw.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    if (ipaddr.isValidCIDR(entry)) {
      const [a, bits] = ipaddr.parseCIDR(entry);
      ranges.push(
        a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96
          ? [(a as ipaddr.IPv6).toIPv4Address(), bits - 96]
          : [a, bits],
      );
    } else if (ipaddr.isValid(entry) && !/^\d+$/.test(entry)) {
      const a = normalizedAddress(entry)!;
      ranges.push([a, a.kind() === 'ipv4' ? 32 : 128]);
    } else if (HOST.test(entry.replace(/\.$/, '')) && !/^[\d.]+$/.test(entry)) {
      hosts.push(entry.replace(/\.$/, ''));
    } else {
      throw new Error(
        `not a host name, address or CIDR range: ${JSON.stringify(raw)} (a port is not part of an entry)`,
      );
    }
  }
  return Object.freeze({ hosts: Object.freeze(hosts), ranges: Object.freeze(ranges) });
}

/** Whether `host` (a URL's host name) is on the list by name. */
export function allowsHost(list: AllowList, host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return list.hosts.some((e) => (e.startsWith('*.') ? h.endsWith(e.slice(1)) : h === e));
}

/** Whether the address `ip` falls in one of the list's ranges (::ffff:a.b.c.d counts as a.b.c.d). */
export function allowsAddress(list: AllowList, ip: string): boolean {
  const a = normalizedAddress(ip);
  if (!a) return false;
  return list.ranges.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits));
}
