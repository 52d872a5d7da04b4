/**
 * Mail port: signing invitations and alert e-mails.
 * Adapters: `infra/mail/smtp` (SMTP to a configured host) and `infra/mail/outbox` (the embedded default
 * with no SMTP host configured: writes RFC 5322 `.eml` files to `DATA_DIR/outbox`).
 */

/**
 * One recipient as a structured value, never as text to be parsed (issue 31: a signer named
 * `Bob; attacker@evil.example; Carl` turned a `To:` built as text into two recipients). `name` is shown
 * as the display name (quoted or MIME-encoded by the adapter, whatever it contains); `address` must be a
 * bare addr-spec (`local@domain`): adapters refuse anything else with {@link InvalidMailAddressError}.
 */
export interface MailAddress {
  name?: string;
  address: string;
}

export interface MailMessage {
  /** The sender: the operator's `MAIL_FROM` (configuration, e.g. `Sello <no-reply@example.mx>`), never user input. */
  from: string;
  /** Recipients, each structured (see {@link MailAddress}). */
  to: MailAddress | MailAddress[];
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
}

export interface Mailer {
  /**
   * Returns the Message-ID assigned to the message.
   * @throws InvalidMailAddressError when a recipient's `address` is not a bare addr-spec (nothing is sent).
   */
  send(message: MailMessage): Promise<{ messageId: string }>;
  /**
   * Deletes every stored message with `address` among its recipients (To, Cc; compared case-insensitively):
   * erasure of an e-mail address (docs/privacy.md). Absent on adapters that keep nothing once sent (SMTP).
   * @returns how many messages were deleted.
   */
  eraseRecipient?(address: string): Promise<number>;
  close(): Promise<void>;
}

/** A recipient address that is not one bare `local@domain` (commas, spaces, angle brackets, controls...). */
export class InvalidMailAddressError extends Error {
  override readonly name = 'InvalidMailAddressError';
}
