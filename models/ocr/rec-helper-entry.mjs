// Recognition-helper thread entry: registers tsx's ESM loader in this thread (loader hooks given on the
// parent's command line do not reach worker threads reliably on Node 20), then loads the TypeScript body.
import { register } from 'tsx/esm/api';

register();
await import('./rec-helper-thread.ts');
