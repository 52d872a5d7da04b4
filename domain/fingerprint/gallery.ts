/**
 * In-process cache of each tenant's active templates as MCC cylinders, so 1:N and 1:1 matching do not
 * rebuild cylinders per request. It follows the read model: before use, `sync` reads the tenant's
 * documents changed after the position it has seen (`changed_position`, indexed), adding enrollments and
 * dropping deletions; a replayed or another process's write is therefore picked up on the next request.
 * Each entry's cylinders are kept in one buffer (about 8 KB per FVC-like template) and indexed by the
 * tenant's {@link CandidateIndex} (about 2 KB per template); templates extracted from images also keep their
 * orientation field as bytes (field.ts, about 0.7 KB). docs/fingerprint.md gives the measured figures.
 */
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import { TEMPLATES_COLLECTION, TEMPLATE_INDEXES, type TemplateDoc } from './deps.ts';
import type { CylinderSet } from './mcc.ts';
import { buildCylindersFast } from './cylinders-fast.ts';
import { decodeMinutiae } from './template.ts';
import { CandidateIndex } from './index-lsh.ts';
import { decodeField, type OrientationField } from './field.ts';

export interface GalleryEntry {
  id: string;
  subjectId: string;
  fingerPosition: number;
  cylinders: CylinderSet;
  /** The template's coarse orientation field (field.ts), absent on ISO templates. */
  field?: OrientationField;
}

export interface TenantGallery {
  entries: Map<string, GalleryEntry>;
  index: CandidateIndex;
  position: number;
}

export class GalleryCache {
  private readonly tenants = new Map<string, TenantGallery>();

  constructor(private readonly readModels: ReadModelStore) {}

  /** The tenant's gallery, brought up to date with the read model. */
  async sync(tenantId: string): Promise<TenantGallery> {
    let g = this.tenants.get(tenantId);
    if (!g) {
      g = { entries: new Map(), index: new CandidateIndex(), position: 0 };
      this.tenants.set(tenantId, g);
    }
    const col = await this.readModels.collection<TemplateDoc>(TEMPLATES_COLLECTION, { indexes: TEMPLATE_INDEXES });
    const changed = await col.find({ tenant_id: tenantId, changed_position: { $gt: g.position } }, { sort: [{ field: 'changed_position', order: 'asc' }] });
    for (const d of changed) {
      if (d.is_active) {
        if (!g.entries.has(d.id)) {
          // The fast builder gives mcc.ts's cylinders bit for bit (test/unit/fingerprint/index.test.ts) in
          // about a third of the CPU: a tenant's first search after a start builds all of them.
          const cylinders = compactCylinders(buildCylindersFast({ minutiae: decodeMinutiae(d.minutiae_b64) }));
          const entry: GalleryEntry = { id: d.id, subjectId: d.subject_id, fingerPosition: d.finger_position, cylinders };
          if (typeof d.field_b64 === 'string') entry.field = decodeField(d.field_b64);
          g.entries.set(d.id, entry);
          g.index.add(d.id, cylinders);
        }
      } else if (g.entries.delete(d.id)) {
        g.index.remove(d.id); // and its postings
      }
      g.position = Math.max(g.position, d.changed_position);
    }
    return g;
  }

  /** Forgets every tenant (after a replay in this process). */
  clear(): void {
    this.tenants.clear();
  }
}

/**
 * A copy of a cylinder set whose arrays are all views on one ArrayBuffer (mcc.ts allocates one buffer per
 * field and template; one buffer saves about 0.6 KB of per-buffer overhead per template in a large
 * gallery). Every typed-array field of `CylinderSet` is copied, each segment 8-byte aligned.
 */
export function compactCylinders(s: CylinderSet): CylinderSet {
  const fields = (Object.keys(s) as Array<keyof CylinderSet>).filter((k) => ArrayBuffer.isView(s[k]));
  const align = (b: number) => (b + 7) & ~7;
  let bytes = 0;
  for (const k of fields) bytes += align((s[k] as Uint8Array).byteLength);
  const buf = new ArrayBuffer(bytes);
  const out: Record<string, unknown> = { n: s.n };
  let o = 0;
  for (const k of fields) {
    const src = s[k] as Uint8Array;
    const Ctor = src.constructor as new (b: ArrayBuffer, off: number, len: number) => Uint8Array;
    const view = new Ctor(buf, o, src.length);
    view.set(src);
    out[k] = view;
    o += align(src.byteLength);
  }
  return out as unknown as CylinderSet;
}
