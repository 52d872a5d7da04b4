import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT, jwtVerify } from 'jose';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { Authenticator } from '../../auth.ts';
import { publicRateLimit } from '../../public-limits.ts';
import {
  DASHBOARD_SESSION_SECONDS,
  dashboardLinkStream,
  decideUseLink,
  parseDashboardToken,
  type DashboardLinkEvent,
} from '../../../../domain/usage/dashboard-links.ts';
import { iso, monthStart, floorTo } from '../../../../domain/usage/time.ts';
import { PLANS } from '../../../../domain/plans/plans.ts';
import { listAlerts, usageCredits, usageSummary } from '../../../../projections/usage-analytics/queries.ts';
import { ALL_ENDPOINTS, usageCollections } from '../../../../projections/usage-analytics/model.ts';
import { ALERT_OPERATORS } from '../../../../domain/usage/alerts.ts';
import { renderUsagePage, safeBranding, type Branding, type UsagePageView } from './page.ts';

const COOKIE = 'sello_dashboard';
const DAY = 86_400_000;

/** Chart.js's browser build, from the installed npm package (no CDN). */
const CHART_JS = join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js');
const PAGE_JS = fileURLToPath(new URL('./assets/usage-page.js', import.meta.url));

/** The page's security headers: scripts from this server only, never framed, no referrer (the login URL holds a token). */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' https: data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'private, no-store',
  'x-content-type-options': 'nosniff',
};

function cookieValue(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return null;
}

/** Builds what the page shows from the read models (the same queries as `/v1/usage/*`). */
export async function usagePageView(platform: Platform, tenantId: string): Promise<UsagePageView> {
  const tenant = platform.tenancy.state.tenants.get(tenantId)!;
  const now = platform.clock.now();
  const store = platform.readModels;
  const summary = await usageSummary(store, tenantId, tenant.plan, now);
  const credits = await usageCredits(store, tenantId, tenant.plan, now);
  const alerts = await listAlerts(store, tenantId);
  const cols = await usageCollections(store);
  const today = floorTo(now, DAY);
  const first = today - 29 * DAY;
  const days = await cols.rollups.find({ tenant_id: tenantId, grain: 'd', endpoint: ALL_ENDPOINTS, bucket: { $gte: iso(first) } });
  const daily = Array.from({ length: 30 }, (_, i) => ({ day: iso(first + i * DAY).slice(0, 10), calls: 0, errors: 0 }));
  for (const r of days) {
    const d = daily[Math.round((Date.parse(r.bucket) - first) / DAY)];
    if (d) {
      d.calls += r.calls;
      d.errors += r.errors;
    }
  }
  // Burn-down of this month: credits left at the end of each day = left now + what was spent after that day.
  const mStart = monthStart(now);
  const mEnd = monthStart(now, 1);
  const spent = await cols.creditDays.find({ tenant_id: tenantId, day: { $gte: iso(mStart).slice(0, 10) } });
  const spentOn = new Map(spent.map((d) => [d.day, d.credits]));
  const burnDown: UsagePageView['burnDown'] = [];
  const rate = credits.estimated_monthly_burn / 30;
  for (let t = mStart; t < mEnd; t += DAY) {
    const day = iso(t).slice(0, 10);
    if (credits.remaining === null) {
      burnDown.push({ day, remaining: null, projected: null });
      continue;
    }
    if (t <= today) {
      let after = 0;
      for (const [d, c] of spentOn) if (d > day) after += c;
      burnDown.push({ day, remaining: credits.remaining + after, projected: t === today ? credits.remaining : null });
    } else burnDown.push({ day, remaining: null, projected: Math.max(0, Math.round(credits.remaining - rate * ((t - today) / DAY))) });
  }
  return {
    tenantName: tenant.name,
    plan: PLANS[tenant.plan].tier,
    generatedAt: iso(now),
    summary: {
      currentMonthCalls: summary.summary.current_month_calls,
      previousMonthCalls: summary.summary.previous_month_calls,
      percentUsed: summary.summary.percent_used,
      trend: summary.summary.trend,
      limit: summary.summary.limit,
    },
    credits: { remaining: credits.remaining, totalUsed: credits.total_used, estimatedMonthlyBurn: credits.estimated_monthly_burn, daysRemaining: credits.days_remaining },
    daily,
    burnDown,
    byService: summary.by_endpoint,
    alerts: alerts.map((a) => ({
      name: a.name,
      condition: `${a.condition.metric} ${ALERT_OPERATORS[a.condition.operator]} ${a.condition.value}${a.condition.window ? ` (${a.condition.window})` : ''}`,
      state: a.state,
      triggeredCount: a.triggered_count,
      lastTriggeredAt: a.last_triggered_at,
      enabled: a.enabled,
    })),
  };
}

/** A sign-in refusal (no tenant is known yet: Spanish, the default language). */
function messagePage(title: string, text: string, branding: Partial<Branding> = {}): string {
  const e = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  // White-label (issue 15): a sign-in page answered to a deployment's domain carries its name, colour and logo.
  const b = safeBranding(branding);
  const mark = b.logoUrl ? `<img src="${e(b.logoUrl)}" alt="${e(b.companyName)}" height="32">` : `<strong style="font-size:19px;color:${b.primaryColor}">${e(b.companyName)}</strong>`;
  return `<!doctype html><html lang="es-MX"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${e(title)} · ${e(b.companyName)}</title></head><body style="font:16px system-ui;max-width:560px;margin:60px auto;color:#1b1f24"><header style="border-bottom:3px solid ${b.primaryColor};padding-bottom:10px">${mark}</header><h1 style="font-size:22px">${e(title)}</h1><p>${e(text)}</p></body></html>`;
}

/**
 * `GET /dashboard/login?token=` (one-time link from the CLI: sets the session cookie, 303 to the page),
 * `GET /dashboard/usage` (the page; session cookie, or `Authorization: Bearer <dashboard JWT>` as the
 * e-mail routes accept) and the page's two scripts. `branding` is the white-label hook (issue 15): the
 * page's company name, colour and logo for its tenant and request; unsafe or missing values fall back to
 * Sello's (`safeBranding`).
 */
export function registerUsageDashboard(
  app: ApiApp,
  platform: Platform,
  /** White-label hook: `tenantId` null on the public sign-in pages (branded by the request's Host). */
  branding: (tenantId: string | null, request: FastifyRequest) => Partial<Branding> | Promise<Partial<Branding>> = () => ({}),
): void {
  const sessionKey = createHmac('sha256', platform.secrets.webhookSecretKey()).update('sello/dashboard-session/v1').digest();
  const authenticator = new Authenticator(platform.tenancy, platform.config);

  async function sessionTenant(request: FastifyRequest): Promise<string | null> {
    const cookie = cookieValue(request, COOKIE);
    if (cookie) {
      try {
        const { payload } = await jwtVerify(cookie, sessionKey, { algorithms: ['HS256'], audience: 'sello-dashboard', requiredClaims: ['exp', 'sub'] });
        if (typeof payload.sub === 'string' && platform.tenancy.state.tenants.has(payload.sub)) return payload.sub;
      } catch {
        // fall through to the Authorization header
      }
    }
    if (request.headers.authorization) {
      try {
        const auth = await authenticator.authenticate(request, { permission: 'read', jwt: true });
        if (auth.via === 'jwt') return auth.tenantId;
      } catch {
        return null;
      }
    }
    return null;
  }

  const html = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(body);
  const hidden = { hide: true } as const;

  app.route({
    method: 'GET',
    url: '/dashboard/login',
    config: { auth: false, rateClass: 'light', errorShape: 'structured' },
    // No key here: a per-address limit instead (issue 31; apps/api/public-limits.ts).
    onRequest: publicRateLimit(platform, 'dashboard-login', { perAddress: platform.config.DASHBOARD_LOGIN_RATE_LIMIT_PER_ADDRESS }),
    schema: { ...hidden, querystring: z.object({ token: z.string().max(200).optional() }) },
    handler: async (request, reply) => {
      const token = (request.query as { token?: string }).token ?? '';
      const parsed = parseDashboardToken(token);
      const refuse = async () => html(reply, 401, messagePage('Este enlace de acceso no se puede usar', 'No es válido, venció o ya se usó. Pide uno nuevo (npm run cli -- dashboard link --tenant ID).', await branding(null, request)));
      if (!parsed) return refuse();
      const stream = dashboardLinkStream(parsed.linkId);
      const { events, currentRevision } = await platform.events.readStream(stream);
      const decision = decideUseLink(events as unknown as DashboardLinkEvent[], parsed.secret, platform.clock.now());
      if (!decision.ok) return refuse();
      try {
        await platform.events.append(stream, [{ ...decision.event, metadata: { tenant_id: decision.event.data.tenant_id } }], { expectedRevision: currentRevision ?? 'no_stream' });
      } catch {
        return refuse(); // used concurrently
      }
      const nowS = Math.floor(platform.clock.now() / 1000);
      const jwt = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(decision.event.data.tenant_id)
        .setAudience('sello-dashboard')
        .setIssuedAt(nowS)
        .setExpirationTime(nowS + DASHBOARD_SESSION_SECONDS)
        .sign(sessionKey);
      const secure = request.protocol === 'https' ? '; Secure' : '';
      return reply
        .code(303)
        .headers({ 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' })
        .header('set-cookie', `${COOKIE}=${jwt}; HttpOnly; SameSite=Lax; Path=/dashboard; Max-Age=${DASHBOARD_SESSION_SECONDS}${secure}`)
        .header('location', '/dashboard/usage')
        .send();
    },
  });

  app.route({
    method: 'GET',
    url: '/dashboard/usage',
    config: { auth: false, rateClass: 'light', errorShape: 'structured' },
    schema: { ...hidden },
    handler: async (request, reply) => {
      const tenantId = await sessionTenant(request);
      if (!tenantId) return html(reply, 401, messagePage('Inicia sesión para ver tu uso', 'Abre un enlace de acceso (npm run cli -- dashboard link --tenant ID) o envía un token de sesión del panel.', await branding(null, request)));
      return html(reply, 200, renderUsagePage(await usagePageView(platform, tenantId), await branding(tenantId, request), platform.tenancy.state.tenants.get(tenantId)?.locale));
    },
  });

  for (const [name, file] of [
    ['chart.umd.min.js', CHART_JS],
    ['usage-page.js', PAGE_JS],
  ] as const) {
    let body: Promise<Buffer> | null = null;
    app.route({
      method: 'GET',
      url: `/dashboard/assets/${name}`,
      config: { auth: false, rateClass: 'light', errorShape: 'structured' },
      schema: { ...hidden },
      handler: async (_request, reply) =>
        reply
          .type('text/javascript; charset=utf-8')
          .header('cache-control', 'public, max-age=3600')
          .header('x-content-type-options', 'nosniff')
          .send(await (body ??= readFile(file))),
    });
  }
}
