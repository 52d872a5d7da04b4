/**
 * One-time sign-in links to the usage page (`npm run cli -- dashboard link --tenant ID`), event-sourced
 * on `dashboard-link-<linkId>`: issued with the SHA-256 of its secret (the secret itself is never
 * stored), used at most once (the use is appended with the expected revision, so two concurrent clicks
 * cannot both sign in), valid for a few minutes.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type DashboardLinkIssued = { type: 'DashboardLinkIssued'; data: { link_id: string; tenant_id: string; token_hash: string; expires_at: string; issued_at: string } };
export type DashboardLinkUsed = { type: 'DashboardLinkUsed'; data: { link_id: string; tenant_id: string; used_at: string } };
export type DashboardLinkEvent = DashboardLinkIssued | DashboardLinkUsed;

export const dashboardLinkStream = (linkId: string) => `dashboard-link-${linkId}`;

/** Default lifetime of a sign-in link, minutes. */
export const DASHBOARD_LINK_MINUTES = 15;
/** Lifetime of the dashboard session cookie, seconds (12 h). */
export const DASHBOARD_SESSION_SECONDS = 12 * 3600;

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** A new link: the token to put in the URL (`<linkId>.<secret>`) and the event to append. */
export function issueDashboardLink(tenantId: string, nowMs: number, minutes = DASHBOARD_LINK_MINUTES): { token: string; event: DashboardLinkIssued } {
  const linkId = `dl_${randomBytes(9).toString('hex')}`;
  const secret = randomBytes(32).toString('base64url');
  return {
    token: `${linkId}.${secret}`,
    event: {
      type: 'DashboardLinkIssued',
      data: { link_id: linkId, tenant_id: tenantId, token_hash: sha256(secret), expires_at: new Date(nowMs + minutes * 60_000).toISOString(), issued_at: new Date(nowMs).toISOString() },
    },
  };
}

/** Splits a token; null when malformed. */
export function parseDashboardToken(token: string): { linkId: string; secret: string } | null {
  const m = /^(dl_[0-9a-f]{18})\.([A-Za-z0-9_-]{43})$/.exec(token);
  return m ? { linkId: m[1]!, secret: m[2]! } : null;
}

/**
 * Decides a sign-in with `secret` given the link's events: the `DashboardLinkUsed` event to append, or
 * the reason it is refused (`unknown`, `used`, `expired`, `mismatch`).
 */
export function decideUseLink(events: readonly DashboardLinkEvent[], secret: string, nowMs: number): { ok: true; event: DashboardLinkUsed } | { ok: false; reason: 'unknown' | 'used' | 'expired' | 'mismatch' } {
  const issued = events.find((e): e is DashboardLinkIssued => e.type === 'DashboardLinkIssued');
  if (!issued) return { ok: false, reason: 'unknown' };
  const want = Buffer.from(issued.data.token_hash, 'hex');
  const got = Buffer.from(sha256(secret), 'hex');
  if (want.length !== got.length || !timingSafeEqual(want, got)) return { ok: false, reason: 'mismatch' };
  if (events.some((e) => e.type === 'DashboardLinkUsed')) return { ok: false, reason: 'used' };
  if (Date.parse(issued.data.expires_at) < nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, event: { type: 'DashboardLinkUsed', data: { link_id: issued.data.link_id, tenant_id: issued.data.tenant_id, used_at: new Date(nowMs).toISOString() } } };
}
