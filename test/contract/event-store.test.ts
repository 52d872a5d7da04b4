import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { MemoryEventStore } from '../../infra/event-store/memory/memory-event-store.ts';
import { SqliteEventStore } from '../../infra/event-store/sqlite/sqlite-event-store.ts';
import { eventStoreContract } from './event-store.contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'sello-es-'));
let n = 0;

eventStoreContract('sqlite (file, WAL)', () => new SqliteEventStore(join(dir, `events-${n++}.sqlite`), 20));
eventStoreContract('memory', () => new MemoryEventStore());

it('sqlite: a second connection (another process, e.g. the CLI) sees appends and its subscription follows them', async () => {
  const file = join(dir, 'shared.sqlite');
  const server = new SqliteEventStore(file, 20);
  const cli = new SqliteEventStore(file, 20);
  const seen: unknown[] = [];
  const sub = server.subscribeToAll({ fromPosition: 0, onEvents: (e) => void seen.push(...e.map((x) => x.data)) });
  await cli.append('tenant-x', [{ type: 'TenantCreated', data: { n: 1 } }]);
  await expect.poll(() => seen.length, { timeout: 2000 }).toBe(1);
  await sub.stop();
  await server.close();
  await cli.close();
});
