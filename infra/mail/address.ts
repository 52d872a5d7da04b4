/**
 * Recipients as nodemailer's structured `{name, address}` values (nodemailer quotes or MIME-encodes the
 * name and uses `address` as is, for the header and the SMTP envelope alike, without parsing either).
 */
import { InvalidMailAddressError, type MailAddress } from '../ports/mail.ts';

// One addr-spec and nothing else: no whitespace, controls, commas, semicolons, quotes, angle brackets or
// parentheses anywhere (any of them could make a header or an envelope name a second recipient).
// eslint-disable-next-line no-control-regex
const BARE_ADDRESS = /^[^\s\u0000-\u001f\u007f,;:<>"()[\]\\@]+@[^\s\u0000-\u001f\u007f,;:<>"()[\]\\@]+$/u;

/**
 * Checks each recipient and returns nodemailer's structured form (a control character in a name becomes
 * a space: the name is shown, not interpreted).
 * @throws InvalidMailAddressError when an address is not one bare `local@domain`.
 */
export function structuredRecipients(to: MailAddress | MailAddress[]): { name: string; address: string }[] {
  const list = Array.isArray(to) ? to : [to];
  if (list.length === 0) throw new InvalidMailAddressError('a message needs at least one recipient');
  return list.map((r) => {
    if (typeof r?.address !== 'string' || r.address.length > 254 || !BARE_ADDRESS.test(r.address)) {
      throw new InvalidMailAddressError(`not a single e-mail address: ${JSON.stringify(String(r?.address).slice(0, 80))}`);
    }
    // eslint-disable-next-line no-control-regex
    return { name: (r.name ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim(), address: r.address };
  });
}
