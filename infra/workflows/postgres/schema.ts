import type pg from 'pg';
import { runLockedDdl, SCHEMA_NAME } from '../../postgres/locked-ddl.ts';

export { SCHEMA_NAME };
/** Advisory-lock class serialising workflow DDL of one schema across processes. */
const MIGRATE_LOCK_CLASS = 0x5e120;
/** Advisory-lock class serialising activity claims of one schema (so per-key limits hold across processes). */
export const CLAIM_LOCK_CLASS = 0x5e121;

/**
 * Tables of the PostgreSQL workflow engine in `schema`:
 * - `wf_workflows`: one row per workflow (state as JSON, `running` | `completed`);
 * - `wf_timers`: pending timers with their due time `at` (epoch ms of the engine's injected clock);
 * - `wf_activities`: activity records `pending -> running -> done`; a running row carries its `owner`
 *   (engine instance id) and `lease_until` (database time), renewed by the owner's heartbeat. A row whose
 *   lease expired belongs to a process that stopped or died: it is fed back as interrupted.
 */
function schemaSql(schema: string): string {
  return `
CREATE SCHEMA IF NOT EXISTS ${schema};
CREATE TABLE IF NOT EXISTS ${schema}.wf_workflows (
  id text PRIMARY KEY,
  name text NOT NULL,
  status text NOT NULL,
  state json,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS wf_workflows_status ON ${schema}.wf_workflows (status, name);
CREATE TABLE IF NOT EXISTS ${schema}.wf_timers (
  workflow_id text NOT NULL,
  timer_id text NOT NULL,
  at bigint NOT NULL,
  PRIMARY KEY (workflow_id, timer_id)
);
CREATE INDEX IF NOT EXISTS wf_timers_at ON ${schema}.wf_timers (at);
CREATE SEQUENCE IF NOT EXISTS ${schema}.wf_activity_seq;
CREATE TABLE IF NOT EXISTS ${schema}.wf_activities (
  workflow_id text NOT NULL,
  activity_id text NOT NULL,
  wf_name text NOT NULL,
  name text NOT NULL,
  input json NOT NULL,
  conc_key text,
  conc_limit integer,
  status text NOT NULL,
  seq bigint NOT NULL DEFAULT nextval('${schema}.wf_activity_seq'),
  owner text,
  lease_until timestamptz,
  outcome json,
  PRIMARY KEY (workflow_id, activity_id)
);
CREATE INDEX IF NOT EXISTS wf_activities_pending ON ${schema}.wf_activities (seq) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS wf_activities_running ON ${schema}.wf_activities (conc_key) WHERE status = 'running';
CREATE INDEX IF NOT EXISTS wf_activities_owned ON ${schema}.wf_activities (owner) WHERE status IN ('running', 'completing', 'reserved');
CREATE INDEX IF NOT EXISTS wf_activities_lease ON ${schema}.wf_activities (lease_until) WHERE status IN ('running', 'completing', 'reserved');

-- Claims up to p_max pending activities (and p_owner's own reserved ones; of the named workflow types; of
-- key p_key only when given) for p_owner, in recording order, keeping every concurrency key under its limit across all processes: the
-- running count per key is read under a transaction-level advisory lock. Rows locked by a concurrent
-- transition are skipped (FOR UPDATE SKIP LOCKED).
CREATE OR REPLACE FUNCTION ${schema}.wf_claim(p_owner text, p_names text[], p_max integer, p_lease_secs float8, p_key text)
RETURNS TABLE (workflow_id text, activity_id text, wf_name text, name text, input json, conc_key text)
LANGUAGE plpgsql VOLATILE AS $fn$
#variable_conflict use_column
DECLARE
  r record;
  n integer := 0;
  running integer;
  saturated text[];
BEGIN
  IF p_max <= 0 THEN RETURN; END IF;
  PERFORM pg_advisory_xact_lock(${CLAIM_LOCK_CLASS}, hashtext('${schema}'));
  SELECT coalesce(array_agg(s.k), '{}') INTO saturated FROM (
    SELECT a.conc_key AS k FROM ${schema}.wf_activities a WHERE a.status = 'running' AND a.conc_key IS NOT NULL
    GROUP BY a.conc_key HAVING count(*) >= max(a.conc_limit)) s;
  FOR r IN
    SELECT a.workflow_id, a.activity_id, a.wf_name, a.name, a.input, a.conc_key, a.conc_limit FROM ${schema}.wf_activities a
     WHERE (a.status = 'pending' OR (a.status = 'reserved' AND a.owner = p_owner)) AND a.wf_name = ANY(p_names)
       AND (p_key IS NULL OR a.conc_key = p_key)
       AND (a.conc_key IS NULL OR NOT (a.conc_key = ANY(saturated)))
     ORDER BY a.seq LIMIT p_max * 4 + 50 FOR UPDATE SKIP LOCKED
  LOOP
    EXIT WHEN n >= p_max;
    IF r.conc_key IS NOT NULL AND r.conc_limit IS NOT NULL THEN
      SELECT count(*) INTO running FROM ${schema}.wf_activities a WHERE a.status = 'running' AND a.conc_key = r.conc_key;
      CONTINUE WHEN running >= r.conc_limit;
    END IF;
    UPDATE ${schema}.wf_activities a SET status = 'running', owner = p_owner, lease_until = now() + make_interval(secs => p_lease_secs)
     WHERE a.workflow_id = r.workflow_id AND a.activity_id = r.activity_id;
    n := n + 1;
    workflow_id := r.workflow_id; activity_id := r.activity_id; wf_name := r.wf_name; name := r.name; input := r.input; conc_key := r.conc_key;
    RETURN NEXT;
  END LOOP;
END
$fn$;

-- Reserves, for p_owner, pending activities of the concurrency keys it is running: up to twice its
-- running count per key, oldest first. A reserved row is in p_owner's local queue: when one of its
-- activities of that key finishes, it starts the next reserved one at once and moves the slot to it in
-- wf_finish (no database round trip between one activity ending and the next starting). Reserved rows
-- never count as running; released back to pending at a clean stop; after a crash (lease expired) they
-- are fed back as interrupted, since one may have been started just before the crash.
CREATE OR REPLACE FUNCTION ${schema}.wf_reserve(p_owner text, p_lease_secs float8)
RETURNS TABLE (workflow_id text, activity_id text, wf_name text, name text, input json, conc_key text)
LANGUAGE plpgsql VOLATILE AS $fn$
#variable_conflict use_column
DECLARE
  k record;
BEGIN
  PERFORM pg_advisory_xact_lock(${CLAIM_LOCK_CLASS}, hashtext('${schema}'));
  FOR k IN
    SELECT a.conc_key AS key,
           2 * count(*) FILTER (WHERE a.status = 'running') - count(*) FILTER (WHERE a.status = 'reserved') AS want
      FROM ${schema}.wf_activities a
     WHERE a.owner = p_owner AND a.status IN ('running', 'reserved') AND a.conc_key IS NOT NULL
     GROUP BY a.conc_key
  LOOP
    CONTINUE WHEN k.want <= 0;
    RETURN QUERY
      UPDATE ${schema}.wf_activities a SET status = 'reserved', owner = p_owner, lease_until = now() + make_interval(secs => p_lease_secs)
       WHERE (a.workflow_id, a.activity_id) IN (
         SELECT b.workflow_id, b.activity_id FROM ${schema}.wf_activities b
          WHERE b.status = 'pending' AND b.conc_key = k.key ORDER BY b.seq LIMIT k.want FOR UPDATE SKIP LOCKED)
      RETURNING a.workflow_id, a.activity_id, a.wf_name, a.name, a.input, a.conc_key;
  END LOOP;
END
$fn$;

-- Records an activity's outcome (status 'completing', the outcome kept in the row until the workflow
-- applies it) and moves its concurrency slot: to the reserved activity p_owner already started in its
-- place (p_next_*), or else to the next pending activity of the same key (claimed for p_owner, up to
-- p_max). One round trip. Rows: kind 'finished' (absent when p_owner no longer holds the row),
-- 'handed' (the reserved row is now running), 'claimed' (start it).
CREATE OR REPLACE FUNCTION ${schema}.wf_finish(p_workflow text, p_activity text, p_owner text, p_outcome json,
  p_next_workflow text, p_next_activity text, p_names text[], p_max integer, p_lease_secs float8)
RETURNS TABLE (workflow_id text, activity_id text, wf_name text, name text, input json, conc_key text, kind text)
LANGUAGE plpgsql VOLATILE AS $fn$
#variable_conflict use_column
DECLARE
  k text;
BEGIN
  UPDATE ${schema}.wf_activities a SET status = 'completing', outcome = p_outcome
   WHERE a.workflow_id = p_workflow AND a.activity_id = p_activity AND a.status = 'running' AND a.owner = p_owner
   RETURNING a.conc_key INTO k;
  IF NOT FOUND THEN RETURN; END IF;
  workflow_id := p_workflow; activity_id := p_activity; wf_name := NULL; name := NULL; input := NULL; conc_key := k; kind := 'finished';
  RETURN NEXT;
  IF p_next_workflow IS NOT NULL THEN
    UPDATE ${schema}.wf_activities a SET status = 'running', lease_until = now() + make_interval(secs => p_lease_secs)
     WHERE a.workflow_id = p_next_workflow AND a.activity_id = p_next_activity AND a.status = 'reserved' AND a.owner = p_owner;
    IF FOUND THEN
      workflow_id := p_next_workflow; activity_id := p_next_activity; kind := 'handed';
      RETURN NEXT;
    END IF;
  ELSIF k IS NOT NULL THEN
    RETURN QUERY SELECT c.*, 'claimed'::text FROM ${schema}.wf_claim(p_owner, p_names, p_max, p_lease_secs, k) c;
  END IF;
END
$fn$;
`;
}

/** Creates or upgrades the workflow tables in `schema` (idempotent; serialised by an advisory lock). */
export async function migratePostgresWorkflows(pool: pg.Pool, schema: string): Promise<void> {
  await runLockedDdl(pool, schema, MIGRATE_LOCK_CLASS, schemaSql(schema));
}
