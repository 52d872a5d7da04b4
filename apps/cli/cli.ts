/**
 * Operator CLI (`npm run cli -- <command>`). Prints JSON on stdout; errors go to stderr as JSON with a
 * non-zero exit code. Works while the server runs, against the same DATA_DIR / DATABASE_URL: a key it
 * prints works on the server's next call (an unknown key makes the server catch up with the log before
 * answering 401); revocations, plan and limit changes reach the server within milliseconds (SQLite: the
 * server watches the file for other processes' commits), at the latest at its poll (100 ms).
 *
 *   tenant create --name NAME --plan free|basic|pro|enterprise        -> {"tenant_id"}
 *   tenant plan --tenant ID --plan PLAN                               -> {"tenant_id","plan"}
 *   tenant limits --tenant ID [--rpm N|unlimited|plan] [--concurrency N|unlimited|plan]   (a limit not named keeps its value)
 *   tenant locale --tenant ID [--language es|en] [--time-zone IANA]  -> {"tenant_id","language","time_zone"} (default es, America/Mexico_City)
 *   key create --tenant ID --permissions read,write[,admin] [--test] [--name N] -> {"key","key_id"}
 *   key revoke --key-id ID                                            -> {"key_id","revoked":true}
 *   credits grant --tenant ID --amount N                              -> {"tenant_id","granted","available_credits"}
 *   replay                                                            -> {"events", "projections": {...}}
 *   migrate                                                           -> {"event_store"} (PostgreSQL schema)
 *   dashboard link --tenant ID [--minutes N]                          -> {"url","expires_at"} one-time sign-in to /dashboard/usage
 *   --help, -h (after any command, or alone)                         -> the command's usage (apps/cli/help.ts)
 *   privacy rotate-master-key                                         -> {"master_key_id","rewrapped","source"} (docs/privacy.md)
 *   signing audit --document ID                                       -> {"events": [raw stream], "chain": {"ok", ...}, "audit_trail", "commitment_mismatches"}
 *   privacy retention --tenant ID [--biometric-days N|none|plan] [--documents-days ...] [--signed-documents-days ...] [--usage-ip-days ...]
 *                                                                     -> the retention view (docs/privacy.md, "Retention")
 *   tenant offboard --tenant ID                                       -> the off-boarding receipt (docs/privacy.md, "Tenant off-boarding")
 *                                                                        (exit 2 when the hash chain does not verify)
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../api/config.ts';
import { readListenOrigin } from '../api/listen-address.ts';
import { boundOrigin } from '../api/public-origin.ts';
import { createPlatform } from '../platform/platform.ts';
import { TenancyError, changePlan, createApiKey, createTenant, loadTenant, revokeApiKey, setTenantLimits, setTenantLocale } from '../../domain/tenancy/operations.ts';
import { CreditLedger } from '../../domain/credits/credit-ledger.ts';
import { PLANS } from '../../domain/plans/plans.ts';
import { tenantStream } from '../../domain/tenancy/tenancy.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import { projectionsOf } from '../capabilities/index.ts';
import { exportAudit } from '../../workflows/signing/audit-export.ts';
import { migratePostgres } from '../../infra/postgres/migrate.ts';
import { rotateMasterKey } from './privacy.ts';
import { DASHBOARD_LINK_MINUTES, dashboardLinkStream, issueDashboardLink } from '../../domain/usage/dashboard-links.ts';
import { cliHelp } from './help.ts';
import { RetentionError, getRetention, setRetention, validateRetentionChange } from '../../domain/privacy/retention.ts';
import { offboardTenant } from '../../domain/privacy/offboarding.ts';
import { privacyRetentionCapability } from '../capabilities/privacy-retention.ts';
import { sharedMasterKeyProblem } from '../../infra/secrets/index.ts';

class UsageError extends Error {}

const out = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value)}\n`);
};

function limitValue(v: string | undefined): number | null | undefined {
  if (v === undefined || v === 'plan') return undefined;
  if (v === 'unlimited') return null;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`limit must be a positive integer, 'unlimited' or 'plan': ${v}`);
  return n;
}

function parseCli(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        plan: { type: 'string' },
        tenant: { type: 'string' },
        permissions: { type: 'string' },
        test: { type: 'boolean', default: false },
        'key-id': { type: 'string' },
        amount: { type: 'string' },
        rpm: { type: 'string' },
        concurrency: { type: 'string' },
        language: { type: 'string' },
        'time-zone': { type: 'string' },
        reason: { type: 'string' },
        document: { type: 'string' },
        minutes: { type: 'string' },
        'biometric-days': { type: 'string' },
        'documents-days': { type: 'string' },
        'signed-documents-days': { type: 'string' },
        'usage-ip-days': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseCli(argv);
  // `--help` (or `help ...`) on any command: plain text, before the platform starts (apps/cli/help.ts).
  if (values.help || positionals[0] === 'help') return void process.stdout.write(cliHelp(positionals[0] === 'help' ? positionals.slice(1) : positionals));
  if (positionals[0] === 'privacy' && positionals[1] === 'rotate-master-key') {
    const config = loadConfig();
    // Rotating a shared store's keys to a file only this DATA_DIR holds would lock every other process out.
    const keyProblem = sharedMasterKeyProblem(config);
    if (keyProblem) throw new Error(keyProblem);
    return out(await rotateMasterKey(config));
  }
  if (positionals[0] === 'migrate') {
    const r = await migratePostgres(loadConfig());
    return out({ database: r.database, schema: r.schema, event_store: r.eventStore });
  }
  const config = loadConfig();
  // Beside one process's DATA_DIR the CLI may use its key file; it never generates a master key for a shared store.
  const keyProblem = sharedMasterKeyProblem(config, { allowExistingFile: true });
  if (keyProblem) throw new Error(keyProblem);
  const platform = await createPlatform(config, { kind: 'cli' });
  const store = platform.events;
  const need = (name: keyof typeof values): string => {
    const v = values[name];
    if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
    return v;
  };
  try {
    const [group, action] = positionals;
    switch (`${group ?? ''} ${action ?? ''}`.trim()) {
      case 'tenant create': {
        const { tenantId } = await createTenant({ store, name: need('name'), plan: need('plan') });
        return out({ tenant_id: tenantId });
      }
      case 'tenant plan': {
        await changePlan({ store, tenantId: need('tenant'), plan: need('plan') });
        return out({ tenant_id: values.tenant, plan: values.plan });
      }
      case 'tenant limits': {
        // A limit not named keeps its current value (each TenantLimitsSet holds both: setting one alone used
        // to return the other to the plan's); `plan` returns a named one to the plan's value.
        const tenantId = need('tenant');
        const current = (await loadTenant(store, tenantId)).limits;
        const rpm = values.rpm === undefined ? current.requestsPerMinute : limitValue(values.rpm);
        const concurrent = values.concurrency === undefined ? current.concurrentRequests : limitValue(values.concurrency);
        await setTenantLimits({ store, tenantId, requestsPerMinute: rpm, concurrentRequests: concurrent });
        return out({ tenant_id: values.tenant, requests_per_minute: rpm === undefined ? 'plan' : (rpm ?? 'unlimited'), concurrent_requests: concurrent === undefined ? 'plan' : (concurrent ?? 'unlimited') });
      }
      case 'tenant locale': {
        const d = await setTenantLocale({ store, tenantId: need('tenant'), language: values.language ?? 'es', timeZone: values['time-zone'] ?? 'America/Mexico_City' });
        return out({ tenant_id: d.tenant_id, language: d.language, time_zone: d.time_zone });
      }
      case 'key create': {
        const { key, keyId } = await createApiKey({
          store,
          tenantId: need('tenant'),
          permissions: need('permissions').split(',').map((p) => p.trim()).filter(Boolean),
          test: values.test,
          name: values.name ?? null,
        });
        return out({ key, key_id: keyId });
      }
      case 'key revoke': {
        const { tenantId } = await revokeApiKey({ store, keyId: need('key-id') });
        return out({ key_id: values['key-id'], tenant_id: tenantId, revoked: true });
      }
      case 'credits grant': {
        const tenantId = need('tenant');
        const amount = Number(need('amount'));
        if (!Number.isInteger(amount) || amount <= 0) throw new UsageError('--amount must be a positive integer');
        const plan = PLANS[(await loadTenant(store, tenantId)).plan];
        const ledger = new CreditLedger(store);
        await ledger.grant(tenantId, amount, values.reason ?? 'operator_grant');
        const available = await ledger.available(tenantId, plan.monthlyCredits);
        return out({ tenant_id: tenantId, granted: amount, available_credits: available ?? 'unlimited' });
      }
      case 'dashboard link': {
        const tenantId = need('tenant');
        const { events } = await store.readStream(tenantStream(tenantId));
        if (!events.length) throw new TenancyError('unknown_tenant', `tenant ${tenantId} does not exist`);
        const minutes = values.minutes === undefined ? DASHBOARD_LINK_MINUTES : Number(values.minutes);
        if (!Number.isInteger(minutes) || minutes < 1 || minutes > 1440) throw new UsageError('--minutes must be an integer from 1 to 1440');
        const { token, event } = issueDashboardLink(tenantId, Date.now(), minutes);
        await store.append(dashboardLinkStream(event.data.link_id), [{ ...event, metadata: { tenant_id: tenantId } }], { expectedRevision: 'no_stream' });
        // PUBLIC_BASE_URL, else where the server on this DATA_DIR listens (it records it), else HOST:PORT.
        const base = platform.config.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? readListenOrigin(platform.config.DATA_DIR) ?? boundOrigin(platform.config);
        return out({ url: `${base}/dashboard/login?token=${token}`, expires_at: event.data.expires_at });
      }
      case 'replay': {
        const t0 = performance.now();
        const report = await ProjectionRunner.replay(store, projectionsOf(platform.capabilities), { store: platform.readModels, vectorIndex: platform.vectorIndex });
        return out({ ...report, seconds: Math.round(performance.now() - t0) / 1000 });
      }
      case 'privacy retention': {
        const tenantId = need('tenant');
        const plan = (await loadTenant(store, tenantId)).plan;
        const days = (v: string): number | null | 'plan' => (v === 'none' ? null : v === 'plan' ? 'plan' : Number(v));
        const raw: Record<string, unknown> = {};
        for (const [option, field] of [['biometric-days', 'biometric_templates_days'], ['documents-days', 'documents_days'], ['signed-documents-days', 'signed_documents_days'], ['usage-ip-days', 'usage_ip_days']] as const) {
          const v = values[option];
          if (typeof v === 'string') raw[field] = days(v);
        }
        if (!Object.keys(raw).length) return out(await getRetention(store, tenantId, plan));
        let change;
        try {
          change = validateRetentionChange(raw);
        } catch (error) {
          if (error instanceof RetentionError) throw new UsageError(`${error.message} (none = until deleted)`);
          throw error;
        }
        return out(await setRetention(store, { tenantId, plan, change, now: Date.now() }));
      }
      case 'tenant offboard': {
        const tenantId = need('tenant');
        const plan = (await loadTenant(store, tenantId)).plan;
        return out(await offboardTenant(platform.use(privacyRetentionCapability).offboarding, { tenantId, plan }));
      }
      case 'signing audit': {
        const report = await exportAudit(store, need('document'));
        if (!report) throw new UsageError(`no signing document ${values.document}`);
        out(report);
        if (!report.chain.ok || report.certificate_head_matches === false || report.commitment_mismatches.length > 0) process.exitCode = 2;
        return;
      }
      default:
        throw new UsageError(
          'usage: cli tenant create|plan|limits|locale|offboard, key create|revoke, credits grant, replay, migrate, dashboard link, signing audit, privacy retention|rotate-master-key (see apps/cli/cli.ts)',
        );
    }
  } finally {
    await platform.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const code = error instanceof TenancyError ? error.code : error instanceof UsageError ? 'usage' : 'error';
  process.stderr.write(`${JSON.stringify({ error: code, message: (error as Error).message })}\n`);
  process.exit(error instanceof UsageError ? 64 : 1);
});
