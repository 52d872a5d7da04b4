/**
 * The finalize claim (issue 31: ten parallel finalizes sealed ten times and left 27 orphan PDFs). Before
 * sealing, a finalize appends `signing_finalize.claimed` to the document's claim stream
 * (`signing_finalize-<document_id>`) with the stream's expected revision: of racing finalizes, across every
 * API process, exactly one append succeeds; the others answer 409 `finalize_in_progress`. The winner appends
 * `signing_finalize.released` when it is done (sealed and recorded, or failed). A claim whose process died
 * lapses after {@link FINALIZE_CLAIM_LEASE_MS}, so the document can be finalized again.
 *
 * The claim stream is coordination, not an audit fact: its types are outside `SIGNING_EVENT_TYPES`, so no
 * projection, dispatcher or audit trail reads it.
 */

/** How long a claim holds without its release (longer than the seal job's 120 s timeout and the TSA's retries). */
export const FINALIZE_CLAIM_LEASE_MS = 300_000;

export const FINALIZE_CLAIMED = 'signing_finalize.claimed';
export const FINALIZE_RELEASED = 'signing_finalize.released';

/** The claim stream of a document. */
export function finalizeClaimStream(documentId: string): string {
  return `signing_finalize-${documentId}`;
}

export interface ClaimEventData {
  claim_id: string;
  at: string;
  /** ISO time the claim lapses without a release. */
  expires_at?: string;
}

/**
 * The claim holding the document at `nowMs`, from its claim stream's events (oldest first): the last
 * `claimed` when no `released` of it follows and it has not lapsed; else null (the document may be claimed).
 */
export function activeClaim(events: readonly { type: string; data: unknown }[], nowMs: number): { claimId: string; expiresAt: string } | null {
  const last = events.at(-1);
  if (!last || last.type !== FINALIZE_CLAIMED) return null;
  const d = last.data as ClaimEventData;
  if (!d.expires_at || Date.parse(d.expires_at) <= nowMs) return null;
  return { claimId: d.claim_id, expiresAt: d.expires_at };
}
