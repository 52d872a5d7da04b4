/**
 * The service's logs at `trace` (its own pino options, `loggerOptions`) hold neither the caller's API key
 * nor its User-Agent, on multipart and JSON calls. Found by the privacy byte scan (issue 28):
 * @fastify/multipart logs every request header at trace ("Providing options to busboy"), the
 * Authorization header included.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { loggerOptions } from '../../../apps/platform/platform.ts';

const AGENT = 'agent-MARKER-log-3b9d';
let s: TestServer;
let key: string;
const dir = mkdtempSync(path.join(tmpdir(), 'sello-log-'));
const logFile = path.join(dir, 'server.log');

beforeAll(async () => {
  s = await startTestServer({ overrides: { log: pino(loggerOptions('trace'), pino.destination({ dest: logFile, sync: true })) } });
  ({ key } = await s.tenantWithKey('enterprise'));
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('logs at trace', () => {
  it('keep no API key and no User-Agent of multipart and JSON calls', async () => {
    // Multipart: refused before any work (an empty subject_id), after @fastify/multipart read the body.
    const form = new FormData();
    form.set('image', new Blob([new Uint8Array([1, 2, 3])]), 'a.jpg');
    form.set('subject_id', '');
    const multipart = await s.fetch('/v1/ocr/extract/id', { method: 'POST', key, headers: { 'user-agent': AGENT }, body: form });
    expect(multipart.status).toBe(400);
    const json = await s.fetch('/v1/privacy/erasures', { method: 'POST', key, headers: { 'user-agent': AGENT, 'content-type': 'application/json' }, body: '{}' });
    expect([400, 403]).toContain(json.status);
    const log = readFileSync(logFile, 'utf8');
    // The multipart plugin's line is there (the positive control), with its headers redacted.
    expect(log).toContain('Providing options to busboy');
    expect(log).toContain('"headers":"[redacted]"');
    expect(log).not.toContain(key);
    expect(log).not.toContain(key.slice(-16));
    expect(log).not.toContain(AGENT);
  });
});
