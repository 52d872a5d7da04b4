import type { FieldCondition, Filter, FindOptions, Scalar } from '../ports/read-models.ts';

/**
 * Compiles a read-model {@link Filter} to a SQL WHERE clause for one dialect. Field names are
 * restricted to `[A-Za-z0-9_]` (they are inlined as JSON paths), values are always bound parameters.
 */
export interface Dialect {
  /** SQL expression for a top-level field, comparable with a bound parameter produced by `param`. */
  field(name: string): string;
  /** Placeholder for the next parameter holding `value`; pushes the bound value. */
  param(value: Scalar, params: unknown[]): string;
  /** Expression true when the field is present and not JSON null. */
  present(name: string): string;
}

const FIELD = /^[A-Za-z0-9_]+$/;

export function checkField(name: string): string {
  if (!FIELD.test(name)) throw new Error(`read models: invalid field name ${JSON.stringify(name)}`);
  return name;
}

export function compileFilter(filter: Filter | undefined, d: Dialect, params: unknown[]): string {
  if (!filter) return '1=1';
  const parts: string[] = [];
  for (const [rawName, cond] of Object.entries(filter)) {
    const name = checkField(rawName);
    parts.push(...compileCondition(name, cond, d, params));
  }
  return parts.length ? parts.join(' AND ') : '1=1';
}

function compileCondition(name: string, cond: FieldCondition, d: Dialect, params: unknown[]): string[] {
  if (cond === null) return [`NOT (${d.present(name)})`];
  if (typeof cond !== 'object') return [`${d.field(name)} = ${d.param(cond, params)}`];
  const out: string[] = [];
  if (cond.$exists !== undefined) out.push(cond.$exists ? d.present(name) : `NOT (${d.present(name)})`);
  if (cond.$gte !== undefined) out.push(`${d.field(name)} >= ${d.param(cond.$gte, params)}`);
  if (cond.$gt !== undefined) out.push(`${d.field(name)} > ${d.param(cond.$gt, params)}`);
  if (cond.$lte !== undefined) out.push(`${d.field(name)} <= ${d.param(cond.$lte, params)}`);
  if (cond.$lt !== undefined) out.push(`${d.field(name)} < ${d.param(cond.$lt, params)}`);
  if (cond.$ne !== undefined) {
    out.push(cond.$ne === null ? d.present(name) : `(NOT (${d.present(name)}) OR ${d.field(name)} <> ${d.param(cond.$ne, params)})`);
  }
  if (cond.$in !== undefined) {
    if (cond.$in.length === 0) out.push('1=0');
    else out.push(`${d.field(name)} IN (${cond.$in.map((v) => d.param(v, params)).join(', ')})`);
  }
  return out;
}

export function compileOrder(options: FindOptions | undefined, d: Dialect): string {
  const sort = options?.sort ?? [];
  const terms = sort.map((s) => `${d.field(checkField(s.field))} ${s.order === 'desc' ? 'DESC' : 'ASC'}`);
  terms.push('id ASC');
  return `ORDER BY ${terms.join(', ')}`;
}

export function collectionTable(name: string): string {
  if (!/^[a-z][a-z0-9_]{0,50}$/.test(name)) throw new Error(`read models: invalid collection name ${JSON.stringify(name)}`);
  return `rm_${name}`;
}
