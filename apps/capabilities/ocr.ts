/** OCR of INE voter cards, passports and utility bills (`/v1/ocr/*`, docs/ocr.md). */
import { defineJobs } from '../../infra/ports/job-queue.ts';
import type { handlers } from '../../models/ocr/jobs.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/** The OCR jobs; input and output types come from the handlers in `models/ocr/jobs.ts`. */
export const ocrJobs = defineJobs<typeof handlers>({
  'ocr.extractId': true,
  'ocr.extractDocument': true,
  'ocr.authenticity': true,
  'ocr.readPage': true,
});

export const ocrCapability: CapabilityManifest = {
  name: 'ocr',
  summary: 'Reads INE cards (front and back), passports (MRZ) and electricity, phone and cable bills; checks authenticity.',
  jobs: { definitions: ocrJobs, load: () => import('../../models/ocr/jobs.ts') },
  routes: async () => (await import('../api/routes/ocr/index.ts')).registerOcrRoutes,
};
