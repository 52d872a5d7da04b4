// PDF thread entry: registers tsx's ESM loader in this thread (as worker-entry.mjs does), then loads the
// TypeScript PDF task module (parsing, scanning and rendering with MuPDF; apps/worker/pdf-pool.ts).
import { register } from 'tsx/esm/api';

register();
const thread = await import('./pdf-thread.ts');
export default thread.default;
