/**
 * In-process cache of each tenant's active templates as MCC cylinders, so 1:N and 1:1 matching do not
 * rebuild cylinders per request. It follows the read model: before use, `sync` reads the tenant's
 * documents changed after the position it has seen (`changed_position`, indexed), adding enrollments and
 * dropping deletions; a replayed or another process's write is therefore picked up on the next request.
 */
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import { TEMPLATES_COLLECTION, TEMPLATE_INDEXES, type TemplateDoc } from './deps.ts';
import { buildCylinders, type CylinderSet } from './mcc.ts';
import { decodeMinutiae } from './template.ts';
import { CandidateIndex } from './index-lsh.ts';

export interface GalleryEntry {
  id: string;
  subjectId: string;
  fingerPosition: number;
  cylinders: CylinderSet;
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
          const cylinders = buildCylinders({ minutiae: decodeMinutiae(d.minutiae_b64) });
          g.entries.set(d.id, { id: d.id, subjectId: d.subject_id, fingerPosition: d.finger_position, cylinders });
          g.index.add(d.id, cylinders);
        }
      } else if (g.entries.delete(d.id)) {
        g.index.remove(d.id);
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
