/**
 * Truncation of client IP addresses (issue 28, item 5; docs/privacy.md, "Retention"): once its period is
 * over, a usage row keeps only the network of the caller's address, as a CIDR block: an IPv4 address its
 * /24 (`203.0.113.77` -> `203.0.113.0/24`), an IPv6 address its /48 (`2001:db8:1:2::5` -> `2001:db8:1::/48`),
 * an IPv4-mapped IPv6 address the /24 of its IPv4 address. The prefixes are the usual anonymisation ones
 * (a /24 or /48 is a site or an access network, not a subscriber).
 */
import { isIPv4, isIPv6 } from 'node:net';

/** IPv4 prefix length kept. */
export const IPV4_PREFIX = 24;
/** IPv6 prefix length kept. */
export const IPV6_PREFIX = 48;

/** True when `ip` is already a truncated block (a CIDR text), or empty: nothing left to truncate. */
export function isTruncatedIp(ip: string | null | undefined): boolean {
  return !ip || ip.includes('/');
}

/** The 8 groups of an IPv6 address, as numbers; null when it is not one. */
function ipv6Groups(ip: string): number[] | null {
  if (!isIPv6(ip)) return null;
  let text = ip.split('%')[0]!;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') as [string, string] : [text, null];
  const h = head ? head.split(':') : [];
  const t = tail === null ? [] : tail ? tail.split(':') : [];
  const groups = [...h, ...(tail === null ? [] : Array(8 - h.length - t.length).fill('0')), ...t].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/**
 * The truncated form of a client IP address (see the module comment). Already-truncated values and
 * empty ones are returned as they are; a text that is no IP address (a proxy's garbage) becomes `""`,
 * since its content cannot be judged.
 */
export function truncateIp(ip: string | null | undefined): string {
  if (isTruncatedIp(ip)) return ip ?? '';
  const value = ip!;
  if (isIPv4(value)) {
    const [a, b, c] = value.split('.');
    return `${a}.${b}.${c}.0/${IPV4_PREFIX}`;
  }
  const g = ipv6Groups(value);
  if (!g) return '';
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `${g[6]! >> 8}.${g[6]! & 0xff}.${g[7]! >> 8}.0/${IPV4_PREFIX}`;
  return `${g.slice(0, 3).map((x) => x.toString(16)).join(':')}::/${IPV6_PREFIX}`;
}
