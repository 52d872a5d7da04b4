/**
 * The usage page's HTML (`GET /dashboard/usage`): the ONE place it is rendered. White-label
 * deployments (issue 15) pass their company name, colour and logo as {@link Branding}; Sello's are the
 * defaults. The charts are drawn in the browser by Chart.js, served from `node_modules`
 * (`/dashboard/assets/chart.umd.min.js`), with the page's data embedded as JSON; no inline script runs
 * (the page's Content-Security-Policy allows scripts from the server itself only).
 */

import { DEFAULT_LOCALE, LANGUAGE_TAGS, formatDateTime, formatNumber, type Language, type Locale } from '../../../../domain/shared/locale.ts';

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

/**
 * Colours of the "calls by service" donut: Paul Tol's discrete rainbow for 12 colours (colour-blind
 * safe, every pair distinguishable; https://personal.sron.nl/~pault/ #fig:discrete_rainbow), enough for
 * every service group; beyond 12 they repeat, and the legend still names each with its count.
 */
export const SERVICE_PALETTE = ['#882E72', '#1965B0', '#7BAFDE', '#4EB265', '#CAE0AB', '#F7F056', '#F6C141', '#E8601C', '#DC050C', '#5289C7', '#90C987', '#F1932D'] as const;

/** Texts of the page per language (numbers and dates come formatted by Intl). */
const TEXT = {
  es: {
    title: 'Uso', plan: (p: string) => `plan ${p}`, callsMonth: 'Llamadas este mes', vsLast: (t: string, n: string) => `${t} vs. el mes pasado (${n})`,
    allowance: 'Asignación mensual usada', of: (l: string) => `de ${l}`, credits: (n: string) => `${n} créditos`, unlimited: 'ilimitado',
    remaining: 'Créditos restantes', noSpend: 'sin gasto reciente', daysLeft: (n: string) => `unos ${n} días al ritmo actual`,
    burn: 'Gasto mensual estimado', burnSub: 'créditos, según los últimos 7 días', callsChart: 'Llamadas y errores, últimos 30 días', callsAria: 'Llamadas y errores por día',
    servicesChart: 'Llamadas por servicio, este mes', servicesAria: 'Llamadas por servicio', burnChart: 'Créditos restantes, este mes', burnAria: 'Créditos restantes por día',
    alerts: 'Alertas', cols: ['Nombre', 'Condición', 'Estado', 'Disparos', 'Última'], noAlerts: 'Aún no hay alertas. Crea una con', noCalls: 'aún no hay llamadas',
    states: { armed: 'armada', triggered: 'disparada', disabled: 'desactivada' } as Record<string, string>,
    footer: (at: string, tz: string) => `Generado el ${at} a partir de los modelos de lectura de uso. Horas en la zona ${tz}; los días de las gráficas son días UTC.`,
    series: { calls: 'Llamadas', errors: 'Errores', remaining: 'Créditos restantes', projected: 'Proyección al ritmo actual' },
  },
  en: {
    title: 'Usage', plan: (p: string) => `${p} plan`, callsMonth: 'Calls this month', vsLast: (t: string, n: string) => `${t} vs last month (${n})`,
    allowance: 'Monthly allowance used', of: (l: string) => `of ${l}`, credits: (n: string) => `${n} credits`, unlimited: 'unlimited',
    remaining: 'Credits remaining', noSpend: 'no recent spending', daysLeft: (n: string) => `about ${n} days at the current rate`,
    burn: 'Estimated monthly burn', burnSub: 'credits, from the last 7 days', callsChart: 'Calls and errors, last 30 days', callsAria: 'Calls and errors per day',
    servicesChart: 'Calls by service, this month', servicesAria: 'Calls by service', burnChart: 'Credits burn-down, this month', burnAria: 'Credits remaining per day',
    alerts: 'Alerts', cols: ['Name', 'Condition', 'State', 'Fired', 'Last'], noAlerts: 'No alerts yet. Create one with', noCalls: 'no calls yet',
    states: { armed: 'armed', triggered: 'triggered', disabled: 'disabled' } as Record<string, string>,
    footer: (at: string, tz: string) => `Generated ${at} from the usage read models. Times in the ${tz} time zone; chart days are UTC days.`,
    series: { calls: 'Calls', errors: 'Errors', remaining: 'Credits remaining', projected: 'Projected at the current rate' },
  },
} satisfies Record<Language, unknown>;

/**
 * The usage page, in the tenant's language and time zone (Spanish, Mexico City by default). Numbers are
 * shown as text too, so the page reads without JavaScript. Fits a 360 px phone: cards and charts shrink
 * with the screen, and the services legend is an HTML list under the donut (never clipped by the canvas).
 */
export function renderUsagePage(view: UsagePageView, branding: Partial<Branding> = {}, locale: Locale = DEFAULT_LOCALE): string {
  const b = safeBranding(branding);
  const e = escapeHtml;
  const t = TEXT[locale.language];
  const fmt = (n: number | null) => (n === null ? t.unlimited : formatNumber(n, locale));
  const services = Object.entries(view.byService).sort((x, y) => y[1] - x[1]);
  const colour = (i: number) => SERVICE_PALETTE[i % SERVICE_PALETTE.length]!;
  const legend = services.length
    ? services.map(([name, n], i) => `<li><span class="swatch" data-colour="${colour(i)}" style="background:${colour(i)}"></span><span class="svc">${e(name)}</span><span class="n">${fmt(n)}</span></li>`).join('')
    : `<li class="muted">${e(t.noCalls)}</li>`;
  const alertsRows = view.alerts.length
    ? view.alerts
        .map((a) => {
          const state = a.enabled ? a.state : 'disabled';
          return `<tr><td>${e(a.name)}</td><td><code>${e(a.condition)}</code></td><td><span class="state ${e(state)}">${e(t.states[state] ?? state)}</span></td><td>${a.triggeredCount}</td><td>${a.lastTriggeredAt ? e(formatDateTime(a.lastTriggeredAt, locale, 'precise')) : '—'}</td></tr>`;
        })
        .join('')
    : `<tr><td colspan="5" class="muted">${e(t.noAlerts)} <code>POST /v1/usage/alerts</code>.</td></tr>`;
  const dayLabel = (day: string) => formatDateTime(`${day}T12:00:00Z`, { language: locale.language, timeZone: 'UTC' }, 'day');
  return `<!doctype html>
<html lang="${LANGUAGE_TAGS[locale.language]}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${e(t.title)} · ${e(b.companyName)}</title>
<style>
  :root { --brand: ${b.primaryColor}; --ink: #1b1f24; --muted: #667085; --line: #e4e7ec; --bg: #f6f8fa; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
  header { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 12px; padding: 14px 28px; background: #fff; border-bottom: 3px solid var(--brand); }
  header img { height: 32px; }
  header .brand { font-weight: 700; font-size: 19px; color: var(--brand); }
  header .tenant { margin-left: auto; color: var(--muted); }
  main { max-width: 1180px; margin: 0 auto; padding: 22px 28px 40px; }
  h1 { font-size: 22px; margin: 0 0 16px; }
  .cards { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 14px; margin-bottom: 18px; }
  .card { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; min-width: 0; }
  .card .label { color: var(--muted); font-size: 13px; }
  .card .value { font-size: 26px; font-weight: 700; margin-top: 2px; overflow-wrap: anywhere; }
  .card .sub { color: var(--muted); font-size: 13px; }
  .grid { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); gap: 14px; margin-bottom: 14px; align-items: start; }
  .grid.even { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
  .panel { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; min-width: 0; }
  .panel h2 { font-size: 15px; margin: 0 0 10px; }
  .chart { position: relative; height: 260px; width: 100%; }
  .chart.donut { height: 200px; }
  @media (min-width: 901px) { .chart.tall { height: 402px; } }
  .chart canvas { max-width: 100%; }
  .legend { list-style: none; margin: 12px 0 0; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 4px 12px; font-size: 13px; }
  .legend li { display: flex; align-items: center; gap: 6px; min-width: 0; }
  .legend .swatch { flex: none; width: 12px; height: 12px; border-radius: 3px; }
  .legend .svc { overflow-wrap: anywhere; }
  .legend .n { margin-left: auto; color: var(--muted); font-variant-numeric: tabular-nums; }
  .table-wrap { overflow-x: auto; }
  table { width: 100%; border-collapse: collapse; }
  th, td { text-align: left; padding: 7px 8px; border-bottom: 1px solid var(--line); font-size: 14px; }
  th { color: var(--muted); font-weight: 600; }
  .state { padding: 2px 8px; border-radius: 999px; font-size: 12px; background: #ecfdf3; color: #027a48; }
  .state.triggered { background: #fef3f2; color: #b42318; }
  .state.disabled { background: #f2f4f7; color: var(--muted); }
  .muted { color: var(--muted); }
  footer { color: var(--muted); font-size: 12px; margin-top: 18px; }
  @media (max-width: 900px) { .cards { grid-template-columns: repeat(2, minmax(0, 1fr)); } .grid, .grid.even { grid-template-columns: minmax(0, 1fr); } }
  @media (max-width: 480px) { header, main { padding-left: 12px; padding-right: 12px; } .cards { gap: 10px; } .card { padding: 12px; } .card .value { font-size: 22px; } .chart { height: 220px; } }
</style>
</head>
<body>
<header>
  ${b.logoUrl ? `<img src="${e(b.logoUrl)}" alt="${e(b.companyName)}">` : ''}<span class="brand">${e(b.companyName)}</span>
  <span class="tenant">${e(view.tenantName)} · ${e(t.plan(view.plan))}</span>
</header>
<main>
  <h1>${e(t.title)}</h1>
  <section class="cards">
    <div class="card"><div class="label">${e(t.callsMonth)}</div><div class="value" id="calls-month">${fmt(view.summary.currentMonthCalls)}</div><div class="sub">${e(t.vsLast(view.summary.trend, fmt(view.summary.previousMonthCalls)))}</div></div>
    <div class="card"><div class="label">${e(t.allowance)}</div><div class="value">${e(view.summary.percentUsed)}</div><div class="sub">${e(t.of(view.summary.limit === 'unlimited' ? t.unlimited : t.credits(fmt(view.summary.limit))))}</div></div>
    <div class="card"><div class="label">${e(t.remaining)}</div><div class="value" id="credits-remaining">${fmt(view.credits.remaining)}</div><div class="sub">${e(view.credits.daysRemaining === null ? t.noSpend : t.daysLeft(fmt(view.credits.daysRemaining)))}</div></div>
    <div class="card"><div class="label">${e(t.burn)}</div><div class="value">${fmt(view.credits.estimatedMonthlyBurn)}</div><div class="sub">${e(t.burnSub)}</div></div>
  </section>
  <section class="grid">
    <div class="panel"><h2>${e(t.callsChart)}</h2><div class="chart tall"><canvas id="chart-calls" aria-label="${e(t.callsAria)}"></canvas></div></div>
    <div class="panel"><h2>${e(t.servicesChart)}</h2><div class="chart donut"><canvas id="chart-services" aria-label="${e(t.servicesAria)}"></canvas></div><ul class="legend" id="services-legend">${legend}</ul></div>
  </section>
  <section class="grid even">
    <div class="panel"><h2>${e(t.burnChart)}</h2><div class="chart"><canvas id="chart-burn" aria-label="${e(t.burnAria)}"></canvas></div></div>
    <div class="panel"><h2>${e(t.alerts)}</h2><div class="table-wrap"><table id="alerts"><thead><tr>${t.cols.map((c) => `<th>${e(c)}</th>`).join('')}</tr></thead><tbody>${alertsRows}</tbody></table></div></div>
  </section>
  <footer>${e(t.footer(formatDateTime(view.generatedAt, locale, 'precise'), locale.timeZone))}</footer>
</main>
<script type="application/json" id="usage-data">${scriptJson({
    daily: view.daily.map((d) => ({ ...d, label: dayLabel(d.day) })),
    burnDown: view.burnDown.map((d) => ({ ...d, label: dayLabel(d.day) })),
    services: services.map(([name, calls], i) => ({ name, calls, colour: colour(i) })),
    brand: b.primaryColor,
    text: { ...t.series, noCalls: t.noCalls },
  })}</script>
<script src="/dashboard/assets/chart.umd.min.js"></script>
<script src="/dashboard/assets/usage-page.js"></script>
</body>
</html>`;
}
