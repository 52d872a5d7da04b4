/**
 * The signing capability's worker job: `signing.seal` renders the three finalized files of a document
 * (`domain/signing/render.ts`) and seals each with a PAdES signature (`domain/signing/pades.ts`), off the
 * API's event loop. The worker loads the service's signing identity itself (`infra/secrets`, from the
 * configuration handed to `configure`), so the private key never travels in a job message.
 * A TSA failure is thrown as the coded error `timestamp_unavailable` (mapped to 503 by the service).
 */
import { createHash } from 'node:crypto';
import type { DocumentState } from '../../domain/signing/document.ts';
import type { AuditEntry } from '../../domain/signing/audit.ts';
import { renderFinal } from '../../domain/signing/render.ts';
import { signPdf, type TimestampOptions } from '../../domain/signing/pades.ts';
import { finalizeEfirmaPdf } from '../../domain/signing/efirma-final.ts';
import { appendPages } from '../../domain/signing/incremental/index.ts';
import { loadSigningIdentity, type SigningIdentity, type SigningIdentityConfig } from '../../infra/secrets/signing-identity.ts';

/** Settings the seal job reads (a subset of the validated configuration). */
export interface SealSettings extends SigningIdentityConfig {
  SIGNING_TSA_URL?: string | undefined;
  SIGNING_TSA_TIMEOUT_MS: number;
  SIGNING_TSA_ATTEMPTS: number;
}

let settings: SealSettings | null = null;
let identity: SigningIdentity | null = null;

/** Keeps the configuration (called once per worker before its first job). */
export function configure(config: SealSettings): void {
  settings = config;
  identity = null;
}

function tsaOf(s: SealSettings): TimestampOptions | undefined {
  return s.SIGNING_TSA_URL ? { url: s.SIGNING_TSA_URL, timeoutMs: s.SIGNING_TSA_TIMEOUT_MS, attempts: s.SIGNING_TSA_ATTEMPTS } : undefined;
}

export interface SealInput {
  original: Uint8Array;
  state: DocumentState;
  /** Drawn signature PNGs by signer id. */
  images: [string, Uint8Array][];
  audit: AuditEntry[];
  chainHead: string;
  finalizedAt: string;
  /** Contact info of the signature dictionary (the service's public base URL). */
  contactInfo: string;
  /**
   * A document signed with e.firma (issue 29): its working PDF (every signer's incremental PAdES signature)
   * and the DER OCSP responses of those signatures. The final PDF is then the working PDF + the seal + the
   * DSS (+ a document time-stamp with a TSA), not a re-rendered original (domain/signing/efirma-final.ts).
   */
  efirma?: { working: Uint8Array; ocspResponses: Uint8Array[] };
}

export interface SealOutput {
  /** `format=pdf`. */
  pdf: Uint8Array;
  /** `format=pdf_with_audit`. */
  withAudit: Uint8Array;
  /** The certificate of completion. */
  certificate: Uint8Array;
  /** Whether the seals carry an RFC 3161 timestamp (B-T). */
  timestamped: boolean;
  /** SHA-256 of the certificate that signed (how verify recognises the service). */
  certificateSha256: string;
}

/**
 * Renders and seals the three files.
 * @throws Error with `code` `timestamp_unavailable` when the TSA does not answer.
 */
export async function seal(input: SealInput, s: SealSettings, id: SigningIdentity): Promise<SealOutput> {
  const common = {
    original: input.original,
    state: input.state,
    images: new Map(input.images),
    audit: input.audit,
    chainHead: input.chainHead,
    finalizedAt: input.finalizedAt,
    signerName: id.subjectName,
  };
  const tsa = tsaOf(s);
  const one = async (mode: 'document' | 'withAudit' | 'certificateOnly') =>
    new Uint8Array(
      await signPdf(await renderFinal({ ...common, mode }), {
        key: id,
        reason: `Sello document ${input.state.document_id} (${mode === 'document' ? 'pdf' : mode === 'withAudit' ? 'pdf_with_audit' : 'certificate'})`,
        location: 'Sello',
        contactInfo: input.contactInfo || 'Sello',
        signingTime: new Date(input.finalizedAt),
        ...(tsa ? { tsa } : {}),
      }),
    );
  if (input.efirma) {
    // e.firma: the signers' signatures must stay untouched, so nothing is stamped on their pages. `pdf` is
    // their working PDF + the seal + LTV data; `pdf_with_audit` appends the certificate of completion (with
    // the audit pages) as an incremental update before the seal, so the seal covers it and the signers'
    // signatures stay valid; the certificate is also its own sealed PDF (docs/signing.md "e.firma: finalize").
    const efirmaFinal = (working: Buffer, variant: string) =>
      finalizeEfirmaPdf(working, id, {
        reason: `Sello document ${input.state.document_id} (${variant})`,
        signingTime: new Date(input.finalizedAt),
        ocspResponses: input.efirma!.ocspResponses.map((b) => Buffer.from(b)),
        ...(tsa ? { tsa } : {}),
      });
    const working = Buffer.from(input.efirma.working);
    const pdf = await efirmaFinal(working, 'pdf');
    const finalSha256 = createHash('sha256').update(pdf).digest('hex');
    const certificateDoc = await renderFinal({ ...common, mode: 'certificateOnly', finalSha256 });
    const withAudit = await efirmaFinal(await appendPages(working, await certificateDoc.save()), 'pdf_with_audit');
    const certificate = new Uint8Array(
      await signPdf(certificateDoc, {
        key: id,
        reason: `Sello document ${input.state.document_id} (certificate)`,
        location: 'Sello',
        contactInfo: input.contactInfo || 'Sello',
        signingTime: new Date(input.finalizedAt),
        ...(tsa ? { tsa } : {}),
      }),
    );
    return { pdf: new Uint8Array(pdf), withAudit: new Uint8Array(withAudit), certificate, timestamped: tsa !== undefined, certificateSha256: id.certificateSha256 };
  }
  return { pdf: await one('document'), withAudit: await one('withAudit'), certificate: await one('certificateOnly'), timestamped: tsa !== undefined, certificateSha256: id.certificateSha256 };
}

/** The job handlers, keyed by job type. */
export const handlers = {
  'signing.seal': async (input: SealInput): Promise<SealOutput> => {
    if (!settings) throw new Error('signing jobs are not configured');
    identity ??= loadSigningIdentity(settings);
    return seal(input, settings, identity);
  },
} satisfies Record<string, (input: never) => Promise<unknown>>;
