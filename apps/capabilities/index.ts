/**
 * Every capability of the product, one manifest each (`./<name>.ts`). The API registers their routes in
 * this order, the projection runner and `cli replay` run their projections, the workflow engine their
 * process managers, and the inference workers their jobs: all derived from this list.
 * Adding a capability is one manifest file and one line here.
 */
import type { JobGroup } from '../../infra/ports/job-queue.ts';
import type { Projection } from '../../projections/projection.ts';
import type { AnyCapability } from '../platform/types.ts';
import { platformCapability } from './platform.ts';
import { registryCapability } from './registry.ts';
import { emailCapability } from './email.ts';
import { webhooksCapability } from './webhooks.ts';
import { faceMatchingCapability } from './face-matching.ts';
import { ocrCapability } from './ocr.ts';
import { faceCapability } from './face.ts';
import { signingCapability } from './signing.ts';
import { usageCapability } from './usage.ts';
import { fingerprintCapability } from './fingerprint.ts';
import { deploymentsCapability } from './deployments.ts';
import { privacyCapability } from './privacy.ts';
import { privacyRetentionCapability } from './privacy-retention.ts';

export const capabilities: readonly AnyCapability[] = [
  platformCapability,
  registryCapability,
  emailCapability,
  webhooksCapability,
  faceMatchingCapability,
  ocrCapability,
  faceCapability,
  signingCapability,
  usageCapability,
  fingerprintCapability,
  deploymentsCapability,
  privacyCapability,
  privacyRetentionCapability,
];

/** The projections of `list`, in order (what the runner applies and `cli replay` rebuilds). */
export function projectionsOf(list: readonly AnyCapability[]): Projection[] {
  return list.flatMap((c) => c.projections ?? []);
}

/**
 * Job type -> the group whose handler module runs it.
 * @throws Error when two capabilities declare the same job type.
 */
export function jobTableOf(list: readonly AnyCapability[]): Map<string, JobGroup> {
  const table = new Map<string, JobGroup>();
  for (const c of list) {
    if (!c.jobs) continue;
    for (const type of Object.keys(c.jobs.definitions)) {
      if (table.has(type)) throw new Error(`job type ${type} is declared twice (capability ${c.name})`);
      table.set(type, c.jobs);
    }
  }
  return table;
}
