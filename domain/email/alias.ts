/**
 * Alias normalisation, exactly as the interface spec ("Email verification result", Alias normalization) says:
 * - Gmail-type (`gmail.com`, `googlemail.com`): drop the `+suffix` and every dot of the local part;
 * - Yahoo-type (`yahoo.<tld>`, `ymail.com`, `rocketmail.com`): drop the `-suffix`;
 * - Outlook/Hotmail/Live-type (`outlook.<tld>`, `hotmail.<tld>`, `live.<tld>`, `msn.com`): drop the `+suffix`.
 * The domain is kept as given (lower-cased); these providers treat local parts case-insensitively, so the
 * canonical form is lower case. `aliasOf` is null when no rule applies or the canonical form equals the
 * input (ignoring case).
 */
export type AliasFamily = 'gmail' | 'yahoo' | 'outlook';

const GMAIL = /^(?:gmail|googlemail)\.com$/;
const YAHOO = /^(?:yahoo\.(?:[a-z]{2,3}|com?\.[a-z]{2})|ymail\.com|rocketmail\.com)$/;
const OUTLOOK = /^(?:(?:outlook|hotmail|live)\.(?:[a-z]{2,3}|com?\.[a-z]{2})|msn\.com)$/;

/** The provider family whose alias rule applies to `asciiDomain` (lower-case), or null. */
export function aliasFamily(asciiDomain: string): AliasFamily | null {
  if (GMAIL.test(asciiDomain)) return 'gmail';
  if (YAHOO.test(asciiDomain)) return 'yahoo';
  if (OUTLOOK.test(asciiDomain)) return 'outlook';
  return null;
}

/**
 * Canonical address when `local@asciiDomain` is an alias of another mailbox, else null.
 * Quoted local parts are never rewritten (none of these providers issues them).
 */
export function canonicalAlias(local: string, asciiDomain: string): string | null {
  const family = aliasFamily(asciiDomain);
  if (!family || local.startsWith('"')) return null;
  const lower = local.toLowerCase();
  let canonical: string;
  switch (family) {
    case 'gmail':
      canonical = lower.split('+')[0]!.replaceAll('.', '');
      break;
    case 'yahoo':
      canonical = lower.split('-')[0]!;
      break;
    case 'outlook':
      canonical = lower.split('+')[0]!;
      break;
    default: {
      const never: never = family;
      throw new Error(`unknown alias family ${String(never)}`);
    }
  }
  // A local part that is nothing but the tag (`+x@gmail.com`) has no canonical mailbox.
  if (canonical === '' || canonical === lower) return null;
  return `${canonical}@${asciiDomain}`;
}
