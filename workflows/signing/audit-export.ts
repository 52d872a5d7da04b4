/**
 * The auditor's export of a signing document (`npm run cli -- signing audit --document ID`): the raw
 * event stream exactly as logged, the hash chain recomputed from it (`verifyChain`), and the audit trail
 * derived from it. An auditor can re-check the chain with nothing but SHA-256 and the canonical JSON rule
 * (`canonicalJson` in `domain/signing/document.ts`: keys sorted, no spaces), and compare its head with
 * the hash printed on the certificate of completion.
 */
import type { EventStore } from '../../infra/ports/event-store.ts';
import { documentStream, eventName } from '../../domain/signing/document.ts';
import { auditEntries, verifyChain, type AuditEntry, type ChainVerdict } from '../../domain/signing/audit.ts';

export interface AuditExport {
  document_id: string;
  stream: string;
  /** The raw events, in stream order. */
  events: { revision: number; event_id: string; type: string; recorded_at: string; data: unknown; metadata: unknown }[];
  chain: ChainVerdict;
  /** Hash of the last entry before `document_finalized` (what the certificate prints), when finalized. */
  certificate_chain_head: string | null;
  /** `chain_head` logged in `document_finalized` equals the recomputed one. */
  certificate_head_matches: boolean | null;
  /** Sealed values that do not match the commitments the chain hashed (`event_id` and fields); empty when all match or the document is erased. */
  commitment_mismatches: { event_id: string; fields: string[] }[];
  audit_trail: AuditEntry[];
}

/** Reads and checks a document's stream. @returns null when the stream does not exist. */
export async function exportAudit(events: EventStore, documentId: string): Promise<AuditExport | null> {
  const { events: evs } = await events.readStream(documentStream(documentId));
  if (evs.length === 0) return null;
  const raw = evs.map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));
  const chain = verifyChain(raw);
  const trail = auditEntries(raw);
  const fin = raw.findIndex((e) => eventName(e.type) === 'document_finalized');
  const recomputedHead = fin > 0 ? trail[fin - 1]!.hash : null;
  return {
    document_id: documentId,
    stream: documentStream(documentId),
    events: evs.map((e) => ({ revision: e.streamRevision, event_id: e.eventId, type: e.type, recorded_at: e.recordedAt, data: e.data, metadata: e.metadata })),
    chain,
    certificate_chain_head: recomputedHead,
    certificate_head_matches: fin > 0 ? raw[fin]!.data.chain_head === recomputedHead : null,
    commitment_mismatches: evs.filter((e) => Array.isArray(e.metadata.commitment_mismatch)).map((e) => ({ event_id: e.eventId, fields: e.metadata.commitment_mismatch as string[] })),
    audit_trail: trail,
  };
}
