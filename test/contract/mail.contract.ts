import { describe, expect, it } from 'vitest';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import { InvalidMailAddressError, type Mailer } from '../../infra/ports/mail.ts';

/** The `To:` header of a raw message, unfolded. */
const toHeader = (raw: string) => /^To: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1]?.replace(/\r?\n[ \t]/g, ' ') ?? '';

/**
 * Mail contract: `factory` returns the adapter and a way to read back what was delivered (raw RFC 5322
 * text), so the outbox and an SMTP adapter (against a real SMTP server on loopback) run the same checks.
 */
export function mailContract(name: string, factory: () => Promise<{ mailer: Mailer; delivered: () => Promise<string[]> }>): void {
  describe(`mail contract: ${name}`, () => {
    it('delivers a message with its headers, subject and UTF-8 body', async () => {
      const { mailer, delivered } = await factory();
      const { messageId } = await mailer.send({
        from: 'Sello <no-reply@sello.test>',
        to: [{ name: 'Ana Peña', address: 'ana.pena@example.test' }],
        subject: 'Firma pendiente: contrato ñ',
        text: 'Hola Ana, tienes un documento por firmar.',
        headers: { 'X-Sello-Document': 'doc_1' },
      });
      expect(messageId).toMatch(/@/);
      const raw = await delivered();
      expect(raw).toHaveLength(1);
      expect(raw[0]).toContain('ana.pena@example.test');
      expect(raw[0]).toContain('X-Sello-Document: doc_1');
      expect(raw[0]).toMatch(/Subject: =\?UTF-8\?/);
      expect(raw[0]).toContain(messageId.replace(/[<>]/g, ''));
      await mailer.close();
    });

    it('keeps a display name full of separators to its one recipient (issue 31)', async () => {
      const { mailer, delivered } = await factory();
      await mailer.send({ from: 'Sello <no-reply@sello.test>', to: { name: 'Bob; attacker@evil.example; Carl', address: 'victim@example.com' }, subject: 's', text: 't' });
      const [raw] = await delivered();
      const to = addressparser(toHeader(raw!), { flatten: true });
      expect(to).toEqual([{ name: 'Bob; attacker@evil.example; Carl', address: 'victim@example.com' }]);
      expect(raw).not.toMatch(/^(Cc|Bcc):/m);
      await mailer.close();
    });

    it('refuses an address that is not one bare addr-spec, sending nothing', async () => {
      const { mailer, delivered } = await factory();
      for (const address of ['victim@example.com, attacker@evil.example', 'Carl <victim@example.com>', 'victim@example.com\r\nBcc: x@evil.example', 'no-at-sign', 'a@b;c@d']) {
        await expect(mailer.send({ from: 'Sello <no-reply@sello.test>', to: { address }, subject: 's', text: 't' })).rejects.toBeInstanceOf(InvalidMailAddressError);
      }
      expect(await delivered()).toHaveLength(0);
      await mailer.close();
    });
  });
}
