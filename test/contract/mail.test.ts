import { mkdtempSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll } from 'vitest';
import { OutboxMailer } from '../../infra/mail/outbox/outbox-mailer.ts';
import { SmtpMailer } from '../../infra/mail/smtp/smtp-mailer.ts';
import { mailContract } from './mail.contract.ts';

mailContract('outbox folder', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sello-outbox-'));
  return {
    mailer: new OutboxMailer(dir),
    delivered: async () => Promise.all((await readdir(dir)).map((f) => readFile(join(dir, f), 'utf8'))),
  };
});

const servers: SMTPServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
});

mailContract('SMTP (real smtp-server on loopback)', async () => {
  const received: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as { port: number }).port;
  return { mailer: new SmtpMailer(`smtp://127.0.0.1:${port}`, { tlsRejectUnauthorized: false }), delivered: async () => received };
});
