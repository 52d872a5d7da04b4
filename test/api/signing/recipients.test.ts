/**
 * Issue 31 item 4: a signer's name never adds recipients. The invitation goes to the signer's address
 * alone, over SMTP (the envelope's RCPT TO, seen by a real smtp-server on loopback) and in the outbox
 * (the `To:` header, parsed as a mail client would); the name is shown as a name, in the mail and on
 * the signing page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { decodeQp, linkOf, makePdf, readOutbox, waitFor, type OutboxMail } from '../../helpers/signing.ts';

const NAME = 'Bob; attacker@evil.example; Carl';
const SIGNER = { email: 'victim@example.com', name: NAME };

interface Received {
  rcptTo: string[];
  raw: string;
}

const smtpReceived: Received[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      smtpReceived.push({ rcptTo: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
      callback();
    });
  },
});
await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
const smtpPort = (smtp.server.address() as { port: number }).port;
afterAll(async () => {
  await new Promise<void>((r) => smtp.close(() => r()));
});

/** The `To:` header of a raw message, unfolded. */
const toHeader = (raw: string) => /^To: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1]?.replace(/\r?\n[ \t]/g, ' ') ?? '';

for (const mail of ['smtp', 'outbox'] as const) {
  describe(`a signer's name adds no recipient (${mail})`, () => {
    let s: TestServer;
    let key: string;
    beforeAll(async () => {
      s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20, ...(mail === 'smtp' ? { MAIL: 'smtp', SMTP_URL: `smtp://127.0.0.1:${smtpPort}` } : {}) } });
      ({ key } = await s.tenantWithKey('pro'));
    });
    afterAll(async () => {
      await s?.close();
    });

    it('mails the invitation to the signer alone, the name shown as a name', async () => {
      const form = new FormData();
      form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'doc.pdf');
      form.set('title', 'Contrato');
      form.set('signers', JSON.stringify([SIGNER]));
      const created = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key });
      expect(created.status).toBe(201);
      const id = ((await created.json()) as { data: { document_id: string } }).data.document_id;
      const sent = await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(sent.status).toBe(200);

      let raw: string;
      let link: string;
      if (mail === 'smtp') {
        const got = await waitFor(() => smtpReceived.find((m) => m.raw.includes(id)), 15_000, 'the SMTP invitation');
        // The envelope is who the message is delivered to.
        expect(got.rcptTo).toEqual(['victim@example.com']);
        raw = got.raw;
        link = linkOf({ file: 'smtp', raw, to: toHeader(raw), subject: '', body: decodeQp(raw) });
      } else {
        const got: OutboxMail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.raw.includes(id)), 15_000, 'the outbox invitation');
        raw = got.raw;
        link = linkOf(got);
      }
      // One recipient in the header too, whose display name is the whole name.
      expect(addressparser(toHeader(raw), { flatten: true })).toEqual([{ name: NAME, address: 'victim@example.com' }]);
      expect(raw).not.toMatch(/^(Cc|Bcc):/m);
      expect(raw).not.toMatch(/^To:.*attacker@evil\.example\s*,/m);
      if (mail === 'smtp') expect(smtpReceived.filter((m) => m.raw.includes(id)).flatMap((m) => m.rcptTo)).toEqual(['victim@example.com']);
      else expect(readOutbox(s.dataDir).filter((m) => m.raw.includes(id))).toHaveLength(1);

      // The signing page shows the name as text.
      const page = await fetch(s.url + link);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Bob; attacker@evil.example; Carl');
    });
  });
}
