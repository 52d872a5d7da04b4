/**
 * The DNS zone used by the e-mail verifier's library and API tests: one domain per DNS outcome, plus
 * an SMTP-probed domain whose MX points at 127.0.0.1.
 */
import type { ZoneEntry } from './email-dns-server.ts';

export const EMAIL_TEST_ZONE: Record<string, ZoneEntry> = {
  'gmail.com': { mx: [[5, 'gmail-smtp-in.l.google.com'], [10, 'alt1.gmail-smtp-in.l.google.com']] },
  'googlemail.com': { mx: [[5, 'gmail-smtp-in.l.google.com']] },
  'yahoo.com.mx': { mx: [[1, 'mx-eu.mail.am0.yahoodns.net']] },
  'hotmail.com': { mx: [[2, 'hotmail-com.olc.protection.outlook.com']] },
  'outlook.com': { mx: [[5, 'outlook-com.olc.protection.outlook.com']] },
  'empresa.com.mx': { mx: [[10, 'mx1.empresa.com.mx'], [20, 'mx2.empresa.com.mx']] },
  'mailinator.com': { mx: [[10, 'mail.mailinator.com']] },
  'implicit.com.mx': { a: ['192.0.2.25'] },
  'nullmx.com.mx': { mx: [[0, '.']] },
  'nomail.com.mx': {},
  'servfail.com.mx': { rcode: 'SERVFAIL' },
  'stalls.com.mx': { stall: true },
  'probe.com.mx': { mx: [[10, 'mx.probe.com.mx']] },
  'catchall.com.mx': { mx: [[10, 'mx.probe.com.mx']] },
  'mx.probe.com.mx': { a: ['127.0.0.1'] },
  'xn--correo--b0a.mx': { mx: [[10, 'mx.probe.com.mx']] },
};

/** 20 domains with MX records for batch tests and the benchmark: `dom00.bench.mx` ... `dom19.bench.mx`. */
export function benchZone(): Record<string, ZoneEntry> {
  const z: Record<string, ZoneEntry> = {};
  for (let i = 0; i < 20; i++) z[`dom${String(i).padStart(2, '0')}.bench.mx`] = { mx: [[10, `mx.dom${i}.bench.mx`]], ttl: 600 };
  return z;
}
