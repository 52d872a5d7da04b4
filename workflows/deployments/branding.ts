import type { Platform } from '../../apps/platform/types.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import { domainOfHost } from '../../domain/deployments/validate.ts';
import { deploymentsCollection, type DeploymentDoc } from '../../projections/deployments/index.ts';
import { logoPath } from './service.ts';

/**
 * The branding a page or an e-mail is drawn with. `deploymentId` null = Sello's own branding.
 * `primaryColor` is the colour after the WCAG AA check (see domain/deployments/contrast.ts): use it as
 * the background of buttons and headers under `textColor`, and for links on white.
 */
export interface Branding {
  deploymentId: string | null;
  companyName: string;
  primaryColor: string;
  textColor: string;
  /** Path of the logo on this service (`/api/deployments/<id>/logo`), null for Sello's text mark. */
  logoPath: string | null;
  /** Absolute logo URL when `PUBLIC_BASE_URL` is configured (e-mails need one), else null. */
  logoUrl: string | null;
  /** True when the requested colour failed AA and was darkened. */
  colorAdjusted: boolean;
}

/** Sello's own branding (pages and e-mails of tenants without a deployment). #1E40AF on white: 8.72:1. */
export const DEFAULT_BRANDING: Branding = {
  deploymentId: null,
  companyName: 'Sello',
  primaryColor: '#1E40AF',
  textColor: '#FFFFFF',
  logoPath: null,
  logoUrl: null,
  colorAdjusted: false,
};

export interface BrandingService {
  /** Branding of the active deployment that provisioned `tenantId`, else {@link DEFAULT_BRANDING}. */
  brandingForTenant(tenantId: string): Promise<Branding>;
  /** Branding of the active deployment whose domain is the `Host` header's (port ignored, IDNA applied), else the default. */
  brandingForHost(host: string | undefined): Promise<Branding>;
  /**
   * The branding of a public page: the deployment of the tenant the page belongs to (e.g. a signing
   * document's owner) when there is one, else the deployment whose domain is the request's `Host`, else
   * the default.
   */
  brandingForPage(o: { tenantId?: string | null; host?: string }): Promise<Branding>;
}

/**
 * The logo as an absolute URL for a page answered to `origin` (`https://kyc.example.mx`): `logoUrl`
 * when `PUBLIC_BASE_URL` is set, else the logo path on the page's own origin; null without a logo.
 */
export function logoUrlFor(b: Branding, origin: string): string | null {
  if (!b.logoPath) return null;
  return b.logoUrl ?? `${origin.replace(/\/+$/, '')}${b.logoPath}`;
}

/**
 * Branding lookups on the `deployments` read model. A deployment gives its branding once its branding
 * step has completed and until it is deactivated (an active deployment whose new branding failed keeps
 * the previous one).
 */
export function createBrandingService(deps: { readModels: ReadModelStore; publicBaseUrl?: string }): BrandingService {
  const base = deps.publicBaseUrl?.replace(/\/+$/, '');
  const of = (doc: DeploymentDoc | undefined): Branding => {
    const b = doc?.state.branding;
    if (!doc || !b) return DEFAULT_BRANDING;
    const path = logoPath(doc.id);
    return {
      deploymentId: doc.id,
      companyName: b.company_name,
      primaryColor: b.primary_color,
      textColor: b.text_color,
      logoPath: path,
      logoUrl: base ? `${base}${path}` : null,
      colorAdjusted: b.contrast.adjusted,
    };
  };
  const live = { status: { $ne: 'deactivated' }, has_branding: true } as const;
  const service: BrandingService = {
    async brandingForTenant(tenantId) {
      const docs = await deploymentsCollection(deps.readModels);
      const found = await docs.find({ provisioned_tenant_id: tenantId, ...live }, { sort: [{ field: 'created_at', order: 'desc' }], limit: 1 });
      return of(found[0]);
    },
    async brandingForHost(host) {
      const domain = domainOfHost(host);
      if (!domain) return DEFAULT_BRANDING;
      const docs = await deploymentsCollection(deps.readModels);
      const found = await docs.find({ domain, ...live }, { sort: [{ field: 'created_at', order: 'desc' }], limit: 1 });
      return of(found[0]);
    },
    async brandingForPage(o) {
      if (o.tenantId) {
        const b = await service.brandingForTenant(o.tenantId);
        if (b.deploymentId) return b;
      }
      return service.brandingForHost(o.host);
    },
  };
  return service;
}

/** The three values the signing pages and e-mails and the usage page are drawn with. */
export interface PageBranding {
  companyName: string;
  /** `#RRGGBB`, already AA-checked. */
  primaryColor: string;
  /** Absolute URL (e-mails) or same-origin path (pages) of the logo; null for a text mark. */
  logoUrl: string | null;
}

/**
 * `b` for a page: the logo as the same-origin path `/api/deployments/<id>/logo` (works whatever Host the
 * page was answered to, and passes a `img-src 'self'` policy). `fallback` is the page's own default
 * branding, used when no deployment applies, so Sello's pages keep their look.
 */
export function forPage(b: Branding, fallback: PageBranding): PageBranding {
  if (!b.deploymentId) return fallback;
  return { companyName: b.companyName, primaryColor: b.primaryColor, logoUrl: b.logoPath };
}

/** `b` for an e-mail: the logo only as an absolute URL (needs `PUBLIC_BASE_URL`), else the company name as text. */
export function forEmail(b: Branding, fallback: PageBranding): PageBranding {
  if (!b.deploymentId) return fallback;
  return { companyName: b.companyName, primaryColor: b.primaryColor, logoUrl: b.logoUrl };
}

/**
 * The branding service of `platform`'s deployments capability, found by name so other capabilities
 * (signing, usage) need no import of the deployments manifest; null when the capability is absent.
 */
export function brandingOf(platform: Platform): BrandingService | null {
  const capability = platform.capabilities.find((c) => c.name === 'deployments');
  if (!capability) return null;
  return (platform.use(capability) as { branding: BrandingService }).branding;
}

/**
 * The page branding for a tenant and/or the Host a page was answered to ({@link BrandingService.brandingForPage}
 * through {@link forPage}), or null when the deployments capability is absent (the caller keeps its own look).
 */
export async function pageBrandingOf(platform: Platform, o: { tenantId?: string | null; host?: string }, fallback: PageBranding): Promise<PageBranding | null> {
  const service = brandingOf(platform);
  return service ? forPage(await service.brandingForPage(o), fallback) : null;
}
