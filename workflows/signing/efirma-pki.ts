/**
 * The e.firma PKI checks of the signing flow (issue 29), bound to the configuration: certificate parsing and
 * FIEL rules (domain/signing/efirma/certificate.ts), path validation against `EFIRMA_TRUST_LIST` and OCSP
 * (infra/signing/efirma/*) at `EFIRMA_OCSP_URL` when set, else the certificate's responder, with
 * `EFIRMA_OCSP_TIMEOUT_MS` x `EFIRMA_OCSP_ATTEMPTS`.
 */
import { delimiter } from 'node:path';
import { SigningError } from '../../domain/signing/errors.ts';
import { assertFielUsable, parseEfirmaCertificate, type EfirmaCertificate } from '../../domain/signing/efirma/certificate.ts';
import { loadTrustList, verifyChain, type TrustList } from '../../infra/signing/efirma/trust-list.ts';
import { checkOcsp } from '../../infra/signing/efirma/ocsp.ts';
import type { EfirmaPki } from './efirma.ts';

/** The settings the checks read (apps/api/config.ts). */
export interface EfirmaPkiSettings {
  EFIRMA_TRUST_LIST?: string;
  EFIRMA_OCSP_URL?: string;
  EFIRMA_OCSP_TIMEOUT_MS: number;
  EFIRMA_OCSP_ATTEMPTS: number;
}

/**
 * The checks, or null when `EFIRMA_TRUST_LIST` is not set (signing with e.firma is then refused with 503
 * `efirma_not_configured`: a certificate is never accepted without a trust list). The trust list is read
 * once, here (a bad path fails the start).
 */
export function efirmaPkiFromConfig(c: EfirmaPkiSettings): EfirmaPki | null {
  if (!c.EFIRMA_TRUST_LIST) return null;
  const trust: TrustList = loadTrustList(c.EFIRMA_TRUST_LIST.split(delimiter).filter(Boolean));
  return {
    parse: (der) => parseEfirmaCertificate(der),
    assertUsable: (cert, now, expected) => assertFielUsable(cert as EfirmaCertificate, now, expected),
    verifyChain: (leaf, at) => verifyChain(leaf, trust, at),
    checkOcsp: (cert, issuer) => {
      const url = c.EFIRMA_OCSP_URL ?? cert.ocspUrl;
      if (!url) throw new SigningError('efirma_ocsp_unavailable', 'The certificate names no OCSP responder and none is configured: its revocation status cannot be checked', {});
      return checkOcsp(cert.der, issuer, { url, timeoutMs: c.EFIRMA_OCSP_TIMEOUT_MS, attempts: c.EFIRMA_OCSP_ATTEMPTS });
    },
  };
}
