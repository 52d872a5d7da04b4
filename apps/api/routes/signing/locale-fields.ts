/** Request fields of the create routes about what signers read: `language`, `time_zone`, printable names. */
import { ApiError } from '../../errors.ts';
import { LANGUAGES, isTimeZone, parseLanguage, type Language } from '../../../../domain/shared/locale.ts';
import { unprintableCharacters } from '../../../../domain/signing/fonts.ts';

/**
 * `language` of a document (`es`, `es-MX`, `en`, `en-US`...; empty = the tenant's setting, else Spanish).
 * @throws ApiError 400 `validation_error` for another language.
 */
export function parseLanguageField(v: string | undefined | null): Language | null {
  const t = v?.trim();
  if (!t) return null;
  const l = parseLanguage(t);
  if (!l) throw new ApiError(400, 'validation_error', `language must be one of ${LANGUAGES.join(', ')} (a region such as es-MX is accepted)`, { field: 'language', value: t.slice(0, 40), allowed: [...LANGUAGES] });
  return l;
}

/**
 * `time_zone` of a document: an IANA name (`America/Tijuana`); empty = the tenant's setting, else
 * America/Mexico_City. @throws ApiError 400 `validation_error` for an unknown zone.
 */
export function parseTimeZoneField(v: string | undefined | null): string | null {
  const t = v?.trim();
  if (!t) return null;
  if (!isTimeZone(t)) throw new ApiError(400, 'validation_error', 'time_zone must be an IANA time zone such as America/Mexico_City', { field: 'time_zone', value: t.slice(0, 64) });
  return t;
}

/**
 * Refuses a title or signer name/role the certificate of completion cannot print (emoji, scripts
 * without a font: see domain/signing/fonts.ts), instead of printing `?`.
 * @throws ApiError 422 `unsupported_characters` naming the field and the characters.
 */
export function assertPrintable(title: string, signers: { name: string; role: string }[]): void {
  const fields: [string, string][] = [['title', title], ...signers.flatMap((s, i): [string, string][] => [[`signers.${i}.name`, s.name], [`signers.${i}.role`, s.role]])];
  for (const [field, value] of fields) {
    const bad = unprintableCharacters(value);
    if (bad.length) {
      throw new ApiError(422, 'unsupported_characters', `${field} contains characters the certificate of completion cannot print: ${bad.join(' ')} (Latin, Greek, Cyrillic, Chinese and Japanese characters are supported)`, {
        field,
        characters: bad,
        code_points: bad.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`),
      });
    }
  }
}

/** What the create routes say about `language`, `time_zone` and printable names (OpenAPI descriptions). */
export const LOCALE_TEXT =
  '`language`: `es` (Spanish, Mexico; the default) or `en` (`es-MX`, `en-US` accepted): the language of the signing page, the invitation, reminder and decline e-mails and the certificate of completion; ' +
  "when absent, the tenant's setting (`cli tenant locale`), else `es`. `time_zone`: IANA name the dates are shown in; when absent, the tenant's setting, else `America/Mexico_City`. " +
  'A title, signer name or role with characters the certificate cannot print (emoji; scripts other than Latin, Greek, Cyrillic, Chinese and Japanese) is refused with 422 `unsupported_characters`.';
