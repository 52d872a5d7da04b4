/**
 * The PDF threads (apps/worker/pdf-pool.ts, issue 31 item 1): a task past its deadline is stopped and
 * answered 422 pdf_too_complex (time_limit) while its thread is replaced; tasks of different tenants are
 * started round-robin, so another tenant's upload is judged before the costly tenant's next task; a tenant
 * with too many waiting tasks is answered 503 pdf_busy at once. Files made by the test.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PdfPool } from '../../apps/worker/pdf-pool.ts';
import { SigningError } from '../../domain/signing/errors.ts';
import { hugePagePdf } from '../helpers/hostile-pdf.ts';
import { makePdf } from '../helpers/signing.ts';

const pool = new PdfPool({ threads: 1, renderMs: 1_000, maxWaitingPerTenant: 2 });
afterAll(() => pool.close());

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof SigningError ? `${e.code}${e.details.reason === 'time_limit' ? ':time_limit' : ''}` : `other: ${String(e)}`),
  );

describe('PDF threads', () => {
  it('stops a costly render at its deadline, serves another tenant before the costly tenant\'s next task, refuses a fourth waiting task', async () => {
    await pool.inspect('warm-up', await makePdf(1)); // the thread is started and warm
    const costly = hugePagePdf(2_000);
    const done: string[] = [];
    const track = (name: string, p: Promise<unknown>) => codeOf(p).then((c) => (done.push(name), c));
    const a1 = track('a1', pool.render('tenant-a', costly, 0, 1.5));
    const a2 = track('a2', pool.render('tenant-a', costly, 0, 1.5));
    const a3 = track('a3', pool.render('tenant-a', costly, 0, 1.5));
    // a1 runs, a2 and a3 wait: a fourth of the same tenant is refused at once
    expect(await codeOf(pool.render('tenant-a', costly, 0, 1.5))).toBe('pdf_busy');
    const b = track('b', pool.inspect('tenant-b', await makePdf(2)));
    expect(await a1).toBe('pdf_too_complex:time_limit');
    expect(await b).toBe('ok');
    expect(await a2).toBe('pdf_too_complex:time_limit');
    expect(await a3).toBe('pdf_too_complex:time_limit');
    // b was queued after a2 and a3 but started right after a1 (round-robin across tenants)
    expect(done).toEqual(['a1', 'b', 'a2', 'a3']);
    // the terminated thread was replaced: an ordinary page still renders
    const png = await pool.render('tenant-b', await makePdf(1), 0, 1);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  }, 120_000);
});
