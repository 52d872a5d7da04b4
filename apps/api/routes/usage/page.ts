/**
 * The usage page's HTML (`GET /dashboard/usage`): the ONE place it is rendered. White-label
 * deployments (issue 15) pass their company name, colour and logo as {@link Branding}; Sello's are the
 * defaults. The charts are drawn in the browser by Chart.js, served from `node_modules`
 * (`/dashboard/assets/chart.umd.min.js`), with the page's data embedded as JSON; no inline script runs
 * (the page's Content-Security-Policy allows scripts from the server itself only).
 */

/**
 * White-label parameters of the page. `primaryColor` is a CSS hex colour; `logoUrl` an http(s) URL, a
 * path on this service (`/api/deployments/<id>/logo`), or null for the text mark.
 */
export interface Branding {
  companyName: string;
  primaryColor: string;
  logoUrl: string | null;
}

/** Sello's own branding. */
export const SELLO_BRANDING: Branding = { companyName: 'Sello', primaryColor: '#1f6feb', logoUrl: null };

/** Everything the page shows, computed from the usage read models. */
export interface UsagePageView {
  tenantName: string;
  plan: string;
  generatedAt: string;
  summary: { currentMonthCalls: number; previousMonthCalls: number; percentUsed: string; trend: string; limit: number | 'unlimited' };
  credits: { remaining: number | null; totalUsed: number; estimatedMonthlyBurn: number; daysRemaining: number | null };
  /** Last 30 UTC days, oldest first. */
  daily: Array<{ day: string; calls: number; errors: number }>;
  /** This month, per UTC day up to today: credits left at the end of the day; then the projection to month end. */
  burnDown: Array<{ day: string; remaining: number | null; projected: number | null }>;
  /** Calls this month per service group. */
  byService: Record<string, number>;
  alerts: Array<{ name: string; condition: string; state: string; triggeredCount: number; lastTriggeredAt: string | null; enabled: boolean }>;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
/** JSON safe inside a `<script type="application/json">` element. */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

/** A branding with unsafe values replaced by Sello's (the colour goes into CSS, the logo into an attribute). */
export function safeBranding(b: Partial<Branding> = {}): Branding {
  const color = b.primaryColor && /^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/.test(b.primaryColor) ? b.primaryColor : SELLO_BRANDING.primaryColor;
  // An http(s) URL, or a same-origin path (a white-label deployment's stored logo, `/api/deployments/<id>/logo`;
  // not `//host/...`, which browsers read as another origin).
  const logo = b.logoUrl && (/^https?:\/\/[^\s"'<>]+$/.test(b.logoUrl) || /^\/(?!\/)[A-Za-z0-9/_.-]+$/.test(b.logoUrl)) ? b.logoUrl : null;
  const name = b.companyName?.trim() ? b.companyName.trim().slice(0, 100) : SELLO_BRANDING.companyName;
  return { companyName: name, primaryColor: color, logoUrl: logo };
}

const fmt = (n: number | null) => (n === null ? 'unlimited' : n.toLocaleString('en-US'));

/** The usage page. Numbers are shown as text too, so the page reads without JavaScript. */
export function renderUsagePage(view: UsagePageView, branding: Partial<Branding> = {}): string {
  const b = safeBranding(branding);
  const e = escapeHtml;
  const alertsRows = view.alerts.length
    ? view.alerts
        .map(
          (a) =>
            `<tr><td>${e(a.name)}</td><td><code>${e(a.condition)}</code></td><td><span class="state ${a.enabled ? e(a.state) : 'disabled'}">${a.enabled ? e(a.state) : 'disabled'}</span></td><td>${a.triggeredCount}</td><td>${a.lastTriggeredAt ? e(a.lastTriggeredAt.replace('T', ' ').slice(0, 16)) + ' UTC' : '—'}</td></tr>`,
        )
        .join('')
    : '<tr><td colspan="5" class="muted">No alerts yet. Create one with <code>POST /v1/usage/alerts</code>.</td></tr>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Usage · ${e(b.companyName)}</title>
<style>
  :root { --brand: ${b.primaryColor}; --ink: #1b1f24; --muted: #667085; --line: #e4e7ec; --bg: #f6f8fa; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
  header { display: flex; align-items: center; gap: 12px; padding: 14px 28px; background: #fff; border-bottom: 3px solid var(--brand); }
  header img { height: 32px; }
  header .brand { font-weight: 700; font-size: 19px; color: var(--brand); }
  header .tenant { margin-left: auto; color: var(--muted); }
  main { max-width: 1180px; margin: 0 auto; padding: 22px 28px 40px; }
  h1 { font-size: 22px; margin: 0 0 16px; }
  .cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 14px; margin-bottom: 18px; }
  .card { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; }
  .card .label { color: var(--muted); font-size: 13px; }
  .card .value { font-size: 26px; font-weight: 700; margin-top: 2px; }
  .card .sub { color: var(--muted); font-size: 13px; }
  .grid { display: grid; grid-template-columns: 2fr 1fr; gap: 14px; margin-bottom: 14px; }
  .panel { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; }
  .panel h2 { font-size: 15px; margin: 0 0 10px; }
  .chart { position: relative; height: 260px; }
  table { width: 100%; border-collapse: collapse; }
  th, td { text-align: left; padding: 7px 8px; border-bottom: 1px solid var(--line); font-size: 14px; }
  th { color: var(--muted); font-weight: 600; }
  .state { padding: 2px 8px; border-radius: 999px; font-size: 12px; background: #ecfdf3; color: #027a48; }
  .state.triggered { background: #fef3f2; color: #b42318; }
  .state.disabled { background: #f2f4f7; color: var(--muted); }
  .muted { color: var(--muted); }
  footer { color: var(--muted); font-size: 12px; margin-top: 18px; }
  @media (max-width: 900px) { .cards { grid-template-columns: repeat(2, 1fr); } .grid { grid-template-columns: 1fr; } }
</style>
</head>
<body>
<header>
  ${b.logoUrl ? `<img src="${e(b.logoUrl)}" alt="${e(b.companyName)}">` : ''}<span class="brand">${e(b.companyName)}</span>
  <span class="tenant">${e(view.tenantName)} · ${e(view.plan)} plan</span>
</header>
<main>
  <h1>Usage</h1>
  <section class="cards">
    <div class="card"><div class="label">Calls this month</div><div class="value" id="calls-month">${fmt(view.summary.currentMonthCalls)}</div><div class="sub">${e(view.summary.trend)} vs last month (${fmt(view.summary.previousMonthCalls)})</div></div>
    <div class="card"><div class="label">Monthly allowance used</div><div class="value">${e(view.summary.percentUsed)}</div><div class="sub">of ${view.summary.limit === 'unlimited' ? 'unlimited' : fmt(view.summary.limit) + ' credits'}</div></div>
    <div class="card"><div class="label">Credits remaining</div><div class="value" id="credits-remaining">${fmt(view.credits.remaining)}</div><div class="sub">${view.credits.daysRemaining === null ? 'no recent spending' : `about ${fmt(view.credits.daysRemaining)} days at the current rate`}</div></div>
    <div class="card"><div class="label">Estimated monthly burn</div><div class="value">${fmt(view.credits.estimatedMonthlyBurn)}</div><div class="sub">credits, from the last 7 days</div></div>
  </section>
  <section class="grid">
    <div class="panel"><h2>Calls and errors, last 30 days</h2><div class="chart"><canvas id="chart-calls" aria-label="Calls and errors per day"></canvas></div></div>
    <div class="panel"><h2>Calls by service, this month</h2><div class="chart"><canvas id="chart-services" aria-label="Calls by service"></canvas></div></div>
  </section>
  <section class="grid">
    <div class="panel"><h2>Credits burn-down, this month</h2><div class="chart"><canvas id="chart-burn" aria-label="Credits remaining per day"></canvas></div></div>
    <div class="panel"><h2>Alerts</h2><table id="alerts"><thead><tr><th>Name</th><th>Condition</th><th>State</th><th>Fired</th><th>Last</th></tr></thead><tbody>${alertsRows}</tbody></table></div>
  </section>
  <footer>Generated ${e(view.generatedAt.replace('T', ' ').slice(0, 19))} UTC from the usage read models. Times are UTC.</footer>
</main>
<script type="application/json" id="usage-data">${scriptJson({ daily: view.daily, burnDown: view.burnDown, byService: view.byService, brand: b.primaryColor })}</script>
<script src="/dashboard/assets/chart.umd.min.js"></script>
<script src="/dashboard/assets/usage-page.js"></script>
</body>
</html>`;
}
