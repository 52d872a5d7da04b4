/** Truncation of client IP addresses (docs/privacy.md, "Retention"): /24 for IPv4, /48 for IPv6. */
import { describe, expect, it } from 'vitest';
import { truncateIp } from './ip-truncation.ts';

describe('truncateIp', () => {
  it('keeps the /24 of an IPv4 address and the /48 of an IPv6 one, idempotently', () => {
    expect(truncateIp('203.0.113.77')).toBe('203.0.113.0/24');
    expect(truncateIp('2001:db8:1:2::5')).toBe('2001:db8:1::/48');
    expect(truncateIp('2001:0db8:00aa:ffff:1:2:3:4')).toBe('2001:db8:aa::/48');
    expect(truncateIp('::ffff:10.1.2.3')).toBe('10.1.2.0/24');
    expect(truncateIp('fe80::1%eth0')).toBe('fe80:0:0::/48');
    expect(truncateIp('203.0.113.0/24')).toBe('203.0.113.0/24');
    expect(truncateIp('')).toBe('');
  });
  it('empties a text that is no IP address', () => {
    expect(truncateIp('not-an-ip')).toBe('');
    expect(truncateIp('999.1.1.1')).toBe('');
  });
});
