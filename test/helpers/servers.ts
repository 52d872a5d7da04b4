/**
 * What a test does when a server it needs (PostgreSQL, Redis, Temporal, Kafka, MinIO) does not answer.
 * On a developer's clone it skips with a printed reason (start them with `npm run engines -- up`). Where
 * `SELLO_REQUIRE_SERVERS=1` (`.ci/run` sets it after starting every server) it throws instead, so CI
 * can never pass by skipping them.
 * @returns false (the caller skips)
 * @throws Error naming the server and the reason when servers are required
 */
export function serverMissing(what: string, reason: string): false {
  if (process.env.SELLO_REQUIRE_SERVERS === '1') throw new Error(`${what}: ${reason}; SELLO_REQUIRE_SERVERS=1, so this is a failure, not a skip (npm run engines -- up)`);
  console.warn(`${what} skipped: ${reason} (start the servers with: npm run engines -- up)`);
  return false;
}
