import { afterEach, describe, expect, it } from 'vitest';
import type { IdempotencyStore, StoredResponse } from '../../infra/ports/idempotency-store.ts';

/**
 * Contract of the idempotency-store port (`infra/ports/idempotency-store.ts`). `factory` opens stores
 * sharing one backing store (the same SQLite file; the same Redis server and prefix), so "two API
 * processes" are two calls.
 */
export function idempotencyStoreContract(name: string, factory: () => IdempotencyStore): void {
  describe(`idempotency store contract: ${name}`, () => {
    const opened: IdempotencyStore[] = [];
    const open = (): IdempotencyStore => {
      const s = factory();
      opened.push(s);
      return s;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });
    const uid = () => Math.random().toString(36).slice(2);
    const answer: StoredResponse = { status: 201, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"success":true,"data":{"n":"ñ"}}', base64: false };

    it('forgetResponses removes the tenant\'s completed answers that contain the text, and no other record (issue 28)', async () => {
      const a = open();
      const tenant = `ten_${uid()}`;
      const other = `ten_${uid()}`;
      const naming: StoredResponse = { ...answer, body: '{"matches":[{"subject_id":"subj:*?[x]","metadata":{"name":"Ana"}}]}' };
      const store = async (t: string, k: string, r: StoredResponse | null) => {
        expect(await a.begin(t, k, 'fp', `o-${k}`, 60_000, Date.now())).toEqual({ state: 'started' });
        if (r) expect(await a.complete(t, k, `o-${k}`, r, 60_000, Date.now())).toBe(true);
      };
      await store(tenant, 'names-1', naming);
      await store(tenant, 'names-2', naming);
      await store(tenant, 'plain', answer);
      await store(tenant, 'running', null);
      await store(tenant, 'bytes', { ...naming, body: Buffer.from(naming.body).toString('base64'), base64: true });
      await store(other, 'names-1', naming);
      expect(await a.forgetResponses(tenant, '"subj:*?[x]"')).toBe(2);
      expect(await a.begin(tenant, 'names-1', 'fp2', 'o9', 60_000, Date.now())).toEqual({ state: 'started' });
      expect((await a.begin(tenant, 'plain', 'fp', 'o9', 60_000, Date.now())).state).toBe('completed');
      expect((await a.begin(tenant, 'running', 'fp', 'o9', 60_000, Date.now())).state).toBe('in_progress');
      expect((await a.begin(other, 'names-1', 'fp', 'o9', 60_000, Date.now())).state).toBe('completed');
      expect(await a.forgetResponses(tenant, '"nobody"')).toBe(0);
      // An e-mail address, matched ignoring ASCII case (the answer keeps it as the caller wrote it).
      await store(tenant, 'mail', { ...answer, body: '{"results":[{"email":"Ana.Mark@Example.com"}]}' });
      expect(await a.forgetResponses(tenant, 'ana.mark@example.com')).toBe(0);
      expect(await a.forgetResponses(tenant, 'ana.mark@example.com', { ignoreCase: true })).toBe(1);
      expect(await a.begin(tenant, 'mail', 'fp2', 'o9', 60_000, Date.now())).toEqual({ state: 'started' });
    });

    it('forgetSubject removes the tenant\'s completed answers tagged with the subject, whatever their body, and no other record (issue 28)', async () => {
      const a = open();
      const b = open();
      const tenant = `ten_${uid()}`;
      const other = `ten_${uid()}`;
      const extraction: StoredResponse = { ...answer, body: '{"fields":{"curp":"PEMA900102HDFXXN05"}}', subject: 'subj:*?[ocr]' };
      const store = async (t: string, k: string, r: StoredResponse) => {
        expect(await a.begin(t, k, 'fp', `o-${k}`, 60_000, Date.now())).toEqual({ state: 'started' });
        expect(await a.complete(t, k, `o-${k}`, r, 60_000, Date.now())).toBe(true);
      };
      await store(tenant, 'ocr-1', extraction);
      await store(tenant, 'ocr-bytes', { ...extraction, body: Buffer.from(extraction.body).toString('base64'), base64: true });
      await store(tenant, 'ocr-other-subject', { ...extraction, subject: 'subj:*?[ocr]2' });
      await store(tenant, 'untagged', { ...answer, body: '{"subject":"subj:*?[ocr]"}' });
      await store(other, 'ocr-1', extraction);
      // The tag is kept with the answer (another process reads it back) but changes nothing of the replay.
      expect(await b.begin(tenant, 'ocr-1', 'fp', 'o9', 60_000, Date.now())).toEqual({ state: 'completed', fingerprint: 'fp', response: extraction });
      expect(await b.forgetSubject(tenant, 'subj:*?[ocr]')).toBe(2);
      expect(await a.begin(tenant, 'ocr-1', 'fp', 'o9', 60_000, Date.now())).toEqual({ state: 'started' });
      expect(await a.begin(tenant, 'ocr-bytes', 'fp', 'o9', 60_000, Date.now())).toEqual({ state: 'started' });
      expect((await a.begin(tenant, 'ocr-other-subject', 'fp', 'o9', 60_000, Date.now())).state).toBe('completed');
      expect((await a.begin(tenant, 'untagged', 'fp', 'o9', 60_000, Date.now())).state).toBe('completed');
      expect((await a.begin(other, 'ocr-1', 'fp', 'o9', 60_000, Date.now())).state).toBe('completed');
      expect(await a.forgetSubject(tenant, 'subj:*?[ocr]')).toBe(0);
      expect(await a.forgetSubject(tenant, 'subj')).toBe(0);
    });

    it('forgetTenant removes every record of the tenant, completed or in progress, and none of another tenant (issue 28 off-boarding)', async () => {
      const a = open();
      const b = open();
      const tenant = `ten_${uid()}*?[`;
      const other = `ten_${uid()}`;
      for (const k of ['k1', 'k2']) {
        expect(await a.begin(tenant, k, 'fp', `o-${k}`, 60_000, Date.now())).toEqual({ state: 'started' });
        expect(await a.complete(tenant, k, `o-${k}`, answer, 60_000, Date.now())).toBe(true);
      }
      expect(await a.begin(tenant, 'running', 'fp', 'o-run', 60_000, Date.now())).toEqual({ state: 'started' });
      expect(await a.begin(other, 'k1', 'fp', 'o-x', 60_000, Date.now())).toEqual({ state: 'started' });
      expect(await a.complete(other, 'k1', 'o-x', answer, 60_000, Date.now())).toBe(true);
      expect(await b.forgetTenant(tenant)).toBe(3);
      for (const k of ['k1', 'k2', 'running']) expect(await a.begin(tenant, k, 'fp', 'o9', 60_000, Date.now())).toEqual({ state: 'started' });
      expect((await a.begin(other, 'k1', 'fp', 'o9', 60_000, Date.now())).state).toBe('completed');
    });

    it('exactly one of many concurrent begins across instances takes a key; the others see it in progress with its fingerprint', async () => {
      const a = open();
      const b = open();
      const tenant = `ten_${uid()}`;
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).begin(tenant, 'key-1', `fp-${i}`, `owner-${i}`, 60_000, Date.now())));
      const started = results.flatMap((r, i) => (r.state === 'started' ? [i] : []));
      expect(started).toHaveLength(1);
      for (const r of results) if (r.state === 'in_progress') expect(r.fingerprint).toBe(`fp-${started[0]}`);
      expect(results.filter((r) => r.state === 'in_progress')).toHaveLength(19);
    });

    it('a completed key answers its stored response (bytes too) to every instance until its TTL; keys are per tenant', async () => {
      const a = open();
      const b = open();
      const tenant = `ten_${uid()}`;
      expect(await a.begin(tenant, 'k', 'fp', 'o1', 60_000, Date.now())).toEqual({ state: 'started' });
      expect(await a.complete(tenant, 'k', 'o1', answer, 60_000, Date.now())).toBe(true);
      expect(await b.begin(tenant, 'k', 'other', 'o2', 60_000, Date.now())).toEqual({ state: 'completed', fingerprint: 'fp', response: answer });
      // Another tenant's same key is its own.
      expect(await b.begin(`ten_${uid()}`, 'k', 'fp', 'o3', 60_000, Date.now())).toEqual({ state: 'started' });
      const bytes: StoredResponse = { status: 200, headers: {}, body: Buffer.from([0, 255, 1]).toString('base64'), base64: true };
      expect(await a.begin(tenant, 'bin', 'fp', 'o4', 60_000, Date.now())).toEqual({ state: 'started' });
      expect(await a.complete(tenant, 'bin', 'o4', bytes, 60_000, Date.now())).toBe(true);
      expect(await b.begin(tenant, 'bin', 'fp', 'o5', 60_000, Date.now())).toEqual({ state: 'completed', fingerprint: 'fp', response: bytes });
    });

    it('a released key is free at once; only its owner releases or completes it', async () => {
      const a = open();
      const tenant = `ten_${uid()}`;
      await a.begin(tenant, 'k', 'fp', 'o1', 60_000, Date.now());
      await a.release(tenant, 'k', 'someone-else');
      expect(await a.complete(tenant, 'k', 'someone-else', answer, 60_000, Date.now())).toBe(false);
      expect((await a.begin(tenant, 'k', 'fp', 'o2', 60_000, Date.now())).state).toBe('in_progress');
      await a.release(tenant, 'k', 'o1');
      expect(await a.begin(tenant, 'k', 'fp2', 'o2', 60_000, Date.now())).toEqual({ state: 'started' });
      // A completed record is not released by its owner's late release.
      expect(await a.complete(tenant, 'k', 'o2', answer, 60_000, Date.now())).toBe(true);
      await a.release(tenant, 'k', 'o2');
      expect((await a.begin(tenant, 'k', 'fp2', 'o3', 60_000, Date.now())).state).toBe('completed');
    });

    it('an in-progress key whose owner died is free after its lease; a completed one after its TTL', async () => {
      const a = open();
      const b = open();
      const tenant = `ten_${uid()}`;
      await a.begin(tenant, 'dead', 'fp', 'o1', 150, Date.now());
      await a.begin(tenant, 'done', 'fp', 'o1', 60_000, Date.now());
      await a.complete(tenant, 'done', 'o1', answer, 150, Date.now());
      await new Promise((r) => setTimeout(r, 300));
      expect(await b.begin(tenant, 'dead', 'fp', 'o2', 60_000, Date.now())).toEqual({ state: 'started' });
      expect(await b.begin(tenant, 'done', 'fp', 'o2', 60_000, Date.now())).toEqual({ state: 'started' });
      // The dead owner's late answer does not overwrite the new holder's record.
      expect(await a.complete(tenant, 'dead', 'o1', answer, 60_000, Date.now())).toBe(false);
      expect((await b.begin(tenant, 'dead', 'fp', 'o3', 60_000, Date.now())).state).toBe('in_progress');
    });

    it('keeps keys of 255 characters with any visible ASCII, and the records survive reopening', async () => {
      const tenant = `ten_${uid()}`;
      const key = `${' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'}${'x'.repeat(255)}`.slice(0, 255);
      const a = open();
      await a.begin(tenant, key, 'fp', 'o1', 60_000, Date.now());
      await a.complete(tenant, key, 'o1', answer, 60_000, Date.now());
      await a.close();
      const b = open();
      expect(await b.begin(tenant, key, 'fp', 'o2', 60_000, Date.now())).toEqual({ state: 'completed', fingerprint: 'fp', response: answer });
    });
  });
}
