import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Server-side request forgery guard (pure part): which IP addresses a webhook may be delivered to.
 *
 * Only globally routable unicast addresses are allowed: ipaddr.js classifies every IANA special-purpose
 * range (RFC 6890 registries: loopback 127/8 and ::1, RFC 1918 private, link-local 169.254/16 (the cloud
 * metadata address 169.254.169.254) and fe80::/10, unique-local fc00::/7, carrier-grade NAT 100.64/10,
 * unspecified, broadcast, multicast, reserved, benchmarking, 6to4/Teredo/NAT64 translations...) and
 * anything not plain `unicast` is refused ({@link addressRange}: IPv4-mapped IPv6 is judged as its IPv4, and
 * IPv4-compatible IPv6 is refused).
 * The operator may allow ranges with `WEBHOOK_ALLOW_CIDRS` (comma-separated CIDRs), e.g. for a receiver
 * on the host's private network or loopback in tests.
 */
export interface AddressPolicy {
  /** Null when `ip` may be contacted; otherwise the ipaddr.js range name that forbids it (e.g. `loopback`). */
  check(ip: string): string | null;
}

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses `WEBHOOK_ALLOW_CIDRS` (comma-separated, e.g. `127.0.0.0/8,::1/128`); raises on a malformed entry. */
export function parseAllowCidrs(text: string | undefined): Cidr[] {
  if (!text) return [];
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      try {
        return ipaddr.parseCIDR(s) as Cidr;
      } catch {
        throw new Error(`WEBHOOK_ALLOW_CIDRS: not a CIDR: ${s}`);
      }
    });
}

/** `ip` without URL brackets (`[::1]`) or an IPv6 zone index (`fe80::1%eth0`). */
function bare(ip: string): string {
  return ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
}

/** The parsed address of a {@link bare} string, an IPv4-mapped IPv6 as its IPv4; null when not an address. */
function normalize(b: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(b)) return null;
  const a = ipaddr.parse(b);
  if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) return (a as ipaddr.IPv6).toIPv4Address();
  return a;
}

/** {@link addressRange} of `b` (bare) parsed as `a`. */
function rangeOf(b: string, a: ipaddr.IPv4 | ipaddr.IPv6): string {
  // ipaddr.js reads the dotted form `::a.b.c.d` as if it were `::ffff:a.b.c.d`; the URL parser and the
  // resolver write the hex form `::a9fe:a9fe`, which it calls unicast. Both are caught here.
  if (/^::\d{1,3}(\.\d{1,3}){3}$/.test(b)) return 'ipv4Compatible';
  const range = a.range();
  if (range === 'unicast' && a.kind() === 'ipv6' && (a as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return 'ipv4Compatible';
  return range;
}

/**
 * The special-purpose range of an address (ipaddr.js's names), `unicast` for a globally routable one,
 * `invalid` when it is not an address. IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is judged as its IPv4. The
 * IPv4-compatible IPv6 addresses (`::a.b.c.d`, ::/96 beyond `::` and `::1`; deprecated by RFC 4291
 * section 2.5.5.1, and which ipaddr.js calls `unicast`) are `ipv4Compatible`: some stacks route them to the
 * embedded IPv4 (`::169.254.169.254`, `::127.0.0.1`).
 */
export function addressRange(ip: string): string {
  const b = bare(ip);
  const a = normalize(b);
  return a ? rangeOf(b, a) : 'invalid';
}

/** The policy: public unicast, or inside one of `allow`. */
export function createAddressPolicy(allow: readonly Cidr[] = []): AddressPolicy {
  return {
    check(ip) {
      const b = bare(ip);
      const a = normalize(b);
      if (!a) return 'invalid';
      for (const [net, bits] of allow) {
        if (net.kind() === a.kind() && a.match([net, bits] as never)) return null;
      }
      const range = rangeOf(b, a);
      return range === 'unicast' ? null : range;
    },
  };
}

/** True when `host` (as in a URL, brackets allowed) is an IP literal rather than a name. */
export function isIpLiteral(host: string): boolean {
  // node:net's parser: ipaddr.isValid is slow on names (it tries every IPv4 notation via exceptions).
  return isIP(bare(host)) !== 0;
}
