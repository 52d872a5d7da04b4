import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/**
 * Issue 31 item 9: a read-only key could create, change and delete usage alerts and start exports (pointing
 * notifications and e-mails at any address). Changes need `write` (and `read`); reads keep needing `read`.
 */
describe('/v1/usage alerts and exports: changes need the write permission (over HTTP)', () => {
  let s: TestServer;
  let rw: string;
  let readOnly: string;
  let writeOnly: string;
  const alert = { name: 'spend', type: 'threshold', condition: { metric: 'credits_remaining', operator: 'lt', value: 10 }, notification: { email: 'ops@example.com' }, enabled: true };

  beforeAll(async () => {
    s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 } });
    const t = await s.tenantWithKey('pro');
    rw = t.key;
    readOnly = (await s.createKey(t.tenantId, ['read'])).key;
    writeOnly = (await s.createKey(t.tenantId, ['write'])).key;
  });
  afterAll(async () => {
    await s?.close();
  });

  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await s.fetch(path, { method, key, ...(body === undefined ? {} : json(body)) });
    return { status: res.status, body: (await res.json()) as { success: boolean; data?: { id: string; name: string }; error?: { code: string; details: Record<string, unknown> } } };
  };

  it('refuses alert and export changes with a read-only key (403 insufficient_permissions, nothing changed)', async () => {
    const created = await call('POST', '/v1/usage/alerts', rw, alert);
    expect(created.status).toBe(201);
    const id = created.body.data!.id;

    const attempts: [string, string, unknown][] = [
      ['POST', '/v1/usage/alerts', { ...alert, name: 'sneaky', notification: { email: 'attacker@evil.example' } }],
      ['PUT', `/v1/usage/alerts/${id}`, { notification: { email: 'attacker@evil.example' } }],
      ['DELETE', `/v1/usage/alerts/${id}`, undefined],
      ['POST', '/v1/usage/export', { format: 'csv', start_date: '2026-11-01', end_date: '2026-11-02', email_to: 'attacker@evil.example' }],
    ];
    for (const [method, path, body] of attempts) {
      const r = await call(method, path, readOnly, body);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body).toMatchObject({ success: false, error: { code: 'insufficient_permissions', details: { required_permission: 'write' } } });
      // A write-only key cannot read usage data either (an export sends it; the alert record shows it).
      const w = await call(method, path, writeOnly, body);
      expect(w.status, `${method} ${path} write-only`).toBe(403);
      expect(w.body.error).toMatchObject({ code: 'insufficient_permissions', details: { required_permission: 'read' } });
    }
    // Nothing changed: one alert, the original one, still sending to ops@.
    const list = await call('GET', '/v1/usage/alerts', readOnly);
    expect(list.status).toBe(200);
    const all = (list.body as unknown as { data: { id: string; name: string; notification: { email: string } }[] }).data;
    expect(all.map((a) => [a.id, a.name, a.notification.email])).toEqual([[id, 'spend', 'ops@example.com']]);
    // Reads stay open to a read key.
    expect((await call('GET', `/v1/usage/alerts/${id}`, readOnly)).status).toBe(200);
    // The read-write key may change and delete.
    expect((await call('PUT', `/v1/usage/alerts/${id}`, rw, { name: 'spend 2' })).status).toBe(200);
    expect((await call('POST', '/v1/usage/export', rw, { format: 'csv', start_date: '2026-11-01', end_date: '2026-11-02' })).status).toBe(202);
    expect((await call('DELETE', `/v1/usage/alerts/${id}`, rw)).status).toBe(200);
  });

  it('says per operation in the OpenAPI document which permission the key needs', async () => {
    const doc = (await (await s.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, { description?: string }>> };
    const desc = (path: string, method: string) => doc.paths[path]?.[method]?.description ?? '';
    for (const [path, method] of [
      ['/v1/usage/alerts', 'post'],
      ['/v1/usage/alerts/{alert_id}', 'put'],
      ['/v1/usage/alerts/{alert_id}', 'delete'],
      ['/v1/usage/export', 'post'],
    ] as const) {
      expect(desc(path, method), `${method} ${path}`).toContain('**Permission:** an API key with `write` and `read`');
    }
    for (const [path, method] of [
      ['/v1/usage/alerts', 'get'],
      ['/v1/usage/alerts/{alert_id}', 'get'],
      ['/v1/usage/export/{export_id}', 'get'],
      ['/v1/usage/summary', 'get'],
    ] as const) {
      expect(desc(path, method), `${method} ${path}`).toContain('**Permission:** an API key with `read` (403');
    }
    expect(desc('/api/deployments/create', 'post')).toContain('**Permission:** an API key with `admin`');
  });
});
