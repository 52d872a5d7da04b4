/**
 * The operator CLI's `--help` (issue 30, item 7): `cli --help` lists every command, `cli GROUP --help`
 * the group's commands, `cli GROUP ACTION --help` one command with its options. Help is plain text on
 * stdout with exit 0; it needs no database (printed before the platform starts).
 */

/** One CLI command: its words, options and what it prints. */
export interface CliCommand {
  /** `tenant create`, `replay`, ... */
  name: string;
  /** Options after the command words, as typed (`--tenant ID`, `[--test]` for optional ones). */
  usage: string;
  /** What it does, one or two sentences. */
  summary: string;
  /** The JSON it prints on stdout. */
  prints: string;
}

/** Every command of apps/cli/cli.ts, in the order `--help` lists them. */
export const CLI_COMMANDS: readonly CliCommand[] = [
  { name: 'tenant create', usage: '--name NAME --plan free|basic|pro|enterprise', summary: 'Creates a tenant (an account) on a plan.', prints: '{"tenant_id"}' },
  { name: 'tenant plan', usage: '--tenant ID --plan free|basic|pro|enterprise', summary: "Moves a tenant to another plan (its monthly credits and limits follow).", prints: '{"tenant_id","plan"}' },
  {
    name: 'tenant limits',
    usage: '--tenant ID [--rpm N|unlimited|plan] [--concurrency N|unlimited|plan]',
    summary: "Sets a tenant's per-minute and concurrency limits; a limit not named keeps its value, `plan` returns it to the plan's.",
    prints: '{"tenant_id","requests_per_minute","concurrent_requests"}',
  },
  {
    name: 'tenant locale',
    usage: '--tenant ID [--language es|en] [--time-zone IANA]',
    summary: "Sets the language and time zone of a tenant's signing pages and e-mails (default es, America/Mexico_City).",
    prints: '{"tenant_id","language","time_zone"}',
  },
  {
    name: 'tenant offboard',
    usage: '--tenant ID',
    summary:
      "Erases all of a tenant's personal data (docs/privacy.md, \"Tenant off-boarding\"): every face and fingerprint subject crypto-shredded, every signing document and file deleted, usage IP addresses truncated, every API key revoked. Cannot be undone.",
    prints: '{"offboarding_id","tenant_id","status","requested_at","completed_at","erased"}',
  },
  { name: 'key create', usage: '--tenant ID --permissions read,write[,admin] [--test] [--name NAME]', summary: 'Issues an API key (sk_live_..., or sk_test_... with --test); the key is shown once.', prints: '{"key","key_id"}' },
  { name: 'key revoke', usage: '--key-id ID', summary: 'Revokes an API key; the server refuses it within a second.', prints: '{"key_id","tenant_id","revoked":true}' },
  { name: 'credits grant', usage: '--tenant ID --amount N [--reason TEXT]', summary: 'Adds purchased credits to a tenant.', prints: '{"tenant_id","granted","available_credits"}' },
  { name: 'dashboard link', usage: '--tenant ID [--minutes N]', summary: 'Prints a one-time sign-in link to the usage dashboard (/dashboard/usage), valid N minutes (1-1440).', prints: '{"url","expires_at"}' },
  { name: 'signing audit', usage: '--document ID', summary: "Prints a signing document's event stream (personal fields opened, or erased) and checks its hash chain (exit 2 when it does not verify or a sealed value does not match its commitment).", prints: '{"events","chain","audit_trail","commitment_mismatches"}' },
  {
    name: 'privacy rotate-master-key',
    usage: '',
    summary: 'Re-wraps every crypto-shredding data key under a new master key (docs/privacy.md, "Master key rotation").',
    prints: '{"master_key_id","rewrapped","source"}',
  },
  {
    name: 'privacy retention',
    usage: '--tenant ID [--biometric-days N|none|plan] [--documents-days N|none|plan] [--signed-documents-days N|none|plan] [--usage-ip-days N|none|plan]',
    summary:
      "Shows a tenant's retention periods, or sets the ones named: days (1-36500), none (kept until deleted) or plan (the plan's default). A daily sweep erases what outlived them (docs/privacy.md, \"Retention\").",
    prints: '{"plan","settings","defaults","overridden","last_sweep","usage_ips_truncated_before"}',
  },
  { name: 'replay', usage: '', summary: 'Rebuilds every read model from the event log (run it with the server stopped).', prints: '{"events","projections","seconds"}' },
  { name: 'migrate', usage: '', summary: 'Creates or upgrades the PostgreSQL schema of the scaled-out adapters (DATABASE_URL).', prints: '{"database","schema","event_store"}' },
];

const line = (c: CliCommand): string => `  ${`${c.name} ${c.usage}`.trim()}`;

/**
 * The help text for `words` (the positionals before `--help`): one command, one group, or all commands
 * when the words name neither.
 */
export function cliHelp(words: readonly string[]): string {
  const exact = CLI_COMMANDS.find((c) => c.name === words.slice(0, 2).join(' ') || c.name === words[0]);
  if (exact) {
    return [`usage: npm run cli -- ${`${exact.name} ${exact.usage}`.trim()}`, '', exact.summary, `Prints ${exact.prints} on stdout; errors go to stderr as JSON with a non-zero exit code.`, ''].join('\n');
  }
  const group = CLI_COMMANDS.filter((c) => c.name.split(' ')[0] === words[0]);
  const shown = group.length ? group : CLI_COMMANDS;
  return [
    `usage: npm run cli -- <command> [options]   (npm run cli -- <command> --help for one command)`,
    '',
    'Sello operator CLI: works while the server runs, against the same DATA_DIR or DATABASE_URL; prints JSON on stdout.',
    '',
    'Commands:',
    ...shown.flatMap((c) => [line(c), `      ${c.summary}`]),
    '',
  ].join('\n');
}
