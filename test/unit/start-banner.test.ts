import { describe, expect, it } from 'vitest';
import { bannerLines } from '../../apps/api/banner.ts';

describe('npm start banner (apps/api/banner.ts)', () => {
  it('prints the addresses bound, and says so when that is every interface', () => {
    const loop = bannerLines([{ address: '127.0.0.1', family: 'IPv4', port: 3000 }], './data', null).join('\n');
    expect(loop).toContain('Sello is listening on http://127.0.0.1:3000\n');
    expect(loop).toContain('API reference: http://127.0.0.1:3000/docs');
    expect(loop).toContain('Only this machine can connect');

    const all = bannerLines([{ address: '0.0.0.0', family: 'IPv4', port: 8080 }], './data', { tenantId: 'ten_1', key: 'sk_test_x' }).join('\n');
    expect(all).toContain('Sello is listening on http://0.0.0.0:8080 (every network interface: reachable from other machines)');
    expect(all).toContain('curl -H "Authorization: Bearer sk_test_x" http://localhost:8080/v1/credits/balance');
    expect(all).not.toContain('Only this machine');

    const both = bannerLines([{ address: '127.0.0.1', family: 'IPv4', port: 1 }, { address: '::1', family: 'IPv6', port: 1 }], 'd', null).join('\n');
    expect(both).toContain('Sello is listening on http://127.0.0.1:1 and http://[::1]:1\n');
    expect(bannerLines([{ address: '::', family: 'IPv6', port: 2 }], 'd', null)[1]).toBe('Sello is listening on http://[::]:2 (every network interface: reachable from other machines)');
  });
});
