/**
 * The auditor's view: `npm run cli -- replay` rebuilds the audit trail identically, `npm run cli --
 * signing audit --document ID` exports the raw stream and verifies its hash chain (whose head is printed on
 * the certificate of completion), and an edit of one logged event breaks the chain (exit 2).
 */
import { DEFAULT_LOCALE, formatDateTime } from '../../../domain/shared/locale.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../../helpers/signing.ts';

const ROOT = join(import.meta.dirname, '../../..');
let s: TestServer;
let key: string;

beforeAll(async () => {
  s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 } });
  ({ key } = await s.tenantWithKey('pro'));
});
afterAll(async () => {
  await s?.close();
});

function cli(args: string[]) {
  const r = spawnSync(process.execPath, ['--no-warnings', '--import', 'tsx', 'apps/cli/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: s.ctx.config.DATA_DIR, LOG_LEVEL: 'silent', BOOTSTRAP: 'false' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, json: r.stdout.trim() ? JSON.parse(r.stdout.trim().split('\n').at(-1)!) : null, stderr: r.stderr };
}

describe('signing audit trail for auditors', () => {
  it('replay rebuilds it identically; the CLI verifies the chain and detects an edited event', async () => {
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'a.pdf');
    form.set('title', 'Audited');
    form.set('signers', JSON.stringify([{ email: 'audit1@example.com', name: 'Uno', order: 1 }, { email: 'audit2@example.com', name: 'Dos', order: 2 }]));
    const id = ((await (await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key })).json()) as any).data.document_id as string;
    await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' });
    for (const who of ['audit1@', 'audit2@']) {
      const m = await waitFor(() => readOutbox(s.dataDir).find((x) => x.to.includes(who)), 15_000, who);
      const t = new URL(s.url + linkOf(m)).searchParams.get('t')!;
      await fetch(`${s.url}/sign/${id}?t=${t}`);
      const r = await fetch(`${s.url}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: who }).toString() });
      expect(r.status).toBe(200);
    }
    expect((await s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key })).status).toBe(200);
    const before = ((await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any).data.audit_trail;
    expect(before.map((e: any) => e.event)).toEqual([
      'document_created', 'invitations_sent', 'link_issued', 'document_viewed', 'document_signed', 'invitations_sent',
      'link_issued', 'document_viewed', 'document_signed', 'document_completed', 'document_finalized',
    ]);

    const replay = cli(['replay']);
    expect(replay.status, replay.stderr).toBe(0);
    const after = ((await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any).data.audit_trail;
    expect(after).toEqual(before);

    const audit = cli(['signing', 'audit', '--document', id]);
    expect(audit.status, audit.stderr).toBe(0);
    expect(audit.json.chain).toMatchObject({ ok: true, entries: 11, head: before.at(-1).hash, broken: null });
    expect(audit.json.events).toHaveLength(11);
    expect(audit.json.certificate_head_matches).toBe(true);
    expect(audit.json.commitment_mismatches).toEqual([]);
    expect(audit.json.audit_trail).toEqual(before);

    // The certificate of completion prints the chain head.
    const cert = Buffer.from(await (await s.fetch(`/v1/signing/documents/${id}/certificate`, { key })).arrayBuffer());
    const f = join(s.dataDir, 'cert.pdf');
    writeFileSync(f, cert);
    const text = spawnSync('pdftotext', [f, '-'], { encoding: 'utf8' });
    if (text.status === 0) {
      expect(text.stdout.replace(/\s+/g, '')).toContain(audit.json.certificate_chain_head);
      // and the same finalize instant as the record (it printed the start of sealing, up to 5 s earlier)
      const finalizedAt = ((await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any).data.finalized_at as string;
      // (in the document's language and time zone: Spanish, Mexico City by default)
      expect(text.stdout.replace(/\s+/g, ' '), text.stdout).toContain(`finalizado: ${formatDateTime(finalizedAt, DEFAULT_LOCALE, 'precise').replace(/\s+/g, ' ')}`);
    }
    else console.log('skip: pdftotext not installed; certificate text not checked');

    // Edit one logged fact (the first signer's IP: sealed, so its commitment, docs/privacy.md "Signing audit
    // chain") behind the service's back: the chain breaks after it.
    const db = new Database(join(s.ctx.config.DATA_DIR, 'events.sqlite'));
    const row = db.prepare("SELECT global_position, data FROM events WHERE stream_name = ? AND type = 'signing.document_signed' ORDER BY stream_revision LIMIT 1").get(`signing-${id}`) as { global_position: number; data: string };
    const data = JSON.parse(row.data);
    expect(data.ip_address).toBeUndefined();
    expect(data.$commitments.ip_address).toMatch(/^[0-9a-f]{64}$/);
    data.$commitments.ip_address = createHash('sha256').update('203.0.113.7').digest('hex');
    db.prepare('UPDATE events SET data = ? WHERE global_position = ?').run(JSON.stringify(data), row.global_position);
    db.close();
    const broken = cli(['signing', 'audit', '--document', id]);
    expect(broken.status).toBe(2);
    expect(broken.json.chain).toMatchObject({ ok: false, broken: { index: 5, event: 'invitations_sent' } });
    expect(broken.json.commitment_mismatches).toEqual([{ event_id: expect.any(String), fields: ['ip_address'] }]);

    const missing = cli(['signing', 'audit', '--document', 'doc_000000000000000000000000']);
    expect(missing.status).toBe(64);
  }, 300_000);
});
