import { describe, expect, it } from 'vitest';
import type { Mailer } from '../../infra/ports/mail.ts';

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
        to: ['ana.pena@example.test'],
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
  });
}
