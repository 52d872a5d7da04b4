import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../apps/api/config.ts';

describe('EMAIL_* settings', () => {
  it('defaults: system DNS servers, SMTP port 25, Gravatar off, private destinations refused', () => {
    const c = loadConfig({});
    expect(c.EMAIL_DNS_SERVERS).toEqual([]);
    expect(c.EMAIL_SMTP_PORT).toBe(25);
    expect(c.EMAIL_GRAVATAR).toBe(false);
    expect(c.EMAIL_SMTP_ALLOW_PRIVATE).toBe(false);
    expect(c.EMAIL_SMTP_TOTAL_TIMEOUT_MS).toBeLessThanOrEqual(5000);
  });
  it('parses a comma-separated server list', () => {
    expect(loadConfig({ EMAIL_DNS_SERVERS: '1.1.1.1, 127.0.0.1:5353,[::1]:53' }).EMAIL_DNS_SERVERS).toEqual(['1.1.1.1', '127.0.0.1:5353', '[::1]:53']);
  });
  it.each([
    [{ EMAIL_DNS_SERVERS: 'dns.google' }, /EMAIL_DNS_SERVERS/],
    [{ EMAIL_SMTP_TOTAL_TIMEOUT_MS: '60000' }, /EMAIL_SMTP_TOTAL_TIMEOUT_MS/],
    [{ EMAIL_GRAVATAR: 'yes' }, /EMAIL_GRAVATAR/],
    [{ EMAIL_GRAVATAR_BASE_URL: 'not a url' }, /EMAIL_GRAVATAR_BASE_URL/],
  ])('rejects %j at start-up', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
