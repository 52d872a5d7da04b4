import { createPublicKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { jwtVerify } from 'jose';
import type { FastifyRequest } from 'fastify';
import { API_KEY_PATTERN, hashApiKey, hashesEqual, type Permission } from '../../domain/tenancy/api-key.ts';
import type { Tenant } from '../../domain/tenancy/tenancy.ts';
import type { Config } from './config.ts';
import { ApiError, PlatformErrors } from './errors.ts';
import type { TenancyView } from '../platform/tenancy-view.ts';

/** Who is calling: set on `request.auth` by the authentication hook. Treat as read-only (it may be shared between calls of one key). */
export interface AuthContext {
  tenantId: string;
  tenant: Tenant;
  /** Null for a dashboard JWT. */
  keyId: string | null;
  permissions: readonly Permission[];
  /** A `sk_test_` key. */
  test: boolean;
  via: 'api_key' | 'jwt';
}

/**
 * Most API keys whose verified identity the authenticator keeps ({@link Authenticator}): beyond it the
 * oldest entry is dropped (a dropped key costs one SHA-256 again on its next call).
 */
export const AUTH_CACHE_MAX = 10_000;

/** A verified key: its secret bytes (for the constant-time check), and the identity derived at `version`. */
interface CachedKey {
  secret: Buffer;
  /** `TenancyView.version` the identity was derived at; any later tenancy event makes it stale. */
  version: number;
  auth: AuthContext;
}

/** The credential of `Authorization: Bearer <credential>`. @throws ApiError 401 when absent or malformed. */
function bearer(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header) throw PlatformErrors.missingCredentials();
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw PlatformErrors.missingCredentials();
  return m[1]!;
}

/**
 * The 403 of a key that authenticated but lacks the route's permission (`insufficient_permissions`). It
 * carries the key's identity, so the answer still has the tenant's billing headers (plan, balance) and the
 * call is recorded under its tenant, as the spec's "every response" headers ask.
 */
export class PermissionDenied extends ApiError {
  constructor(
    readonly identity: AuthContext,
    permission: string,
  ) {
    const e = PlatformErrors.insufficientPermissions(permission);
    super(e.status, e.code, e.message, e.details);
  }
}

/** @throws ApiError 401 without an identity, {@link PermissionDenied} (403) when it lacks the required permission. */
function permitted(auth: AuthContext | null, requirement: AuthRequirement): AuthContext {
  if (!auth) throw PlatformErrors.invalidCredentials();
  if (!auth.permissions.includes(requirement.permission)) throw new PermissionDenied(auth, requirement.permission);
  if (requirement.also) for (const p of requirement.also) if (!auth.permissions.includes(p)) throw new PermissionDenied(auth, p);
  return auth;
}

export interface AuthRequirement {
  permission: Permission;
  /** Further permissions the key must also hold (a change that also reads, e.g. a usage export needs `write` and `read`). */
  also?: readonly Permission[];
  /** Also accept a dashboard session JWT (email endpoints; spec, Authentication 3). */
  jwt?: boolean;
}

/**
 * Authenticates `Authorization: Bearer <credential>`: an API key (looked up by its SHA-256 in the
 * in-memory tenancy view, compared in constant time, must not be revoked; a key the view does not know
 * first triggers one rate-bounded catch-up with the log, see `TenancyView.catchUpForUnknownCredential`) or, where the route allows it, a dashboard JWT (HS256 with
 * `JWT_SECRET` or EdDSA with `JWT_PUBLIC_KEY`) whose `tenant_id` (or `sub`) names the tenant.
 * @throws ApiError 401 for missing/invalid/revoked/expired credentials, 403 for a missing permission.
 */
export class Authenticator {
  private readonly hsKey: Uint8Array | null;
  private readonly edKey: KeyObject | null;
  /**
   * Keys verified before, by their full text (insertion order = age; at most {@link AUTH_CACHE_MAX}):
   * a known key then costs one map lookup and one constant-time comparison of its bytes instead of a
   * SHA-256, a hex decode and a new identity object per call. Only keys that authenticated are kept, so
   * junk keys cannot fill it; an entry is used only while the tenancy view has not moved since it was
   * made (revocations, plan and limit changes take effect on the next call).
   */
  private readonly cache = new Map<string, CachedKey>();

  constructor(
    private readonly view: TenancyView,
    config: Pick<Config, 'JWT_SECRET' | 'JWT_PUBLIC_KEY'>,
  ) {
    this.hsKey = config.JWT_SECRET ? new TextEncoder().encode(config.JWT_SECRET) : null;
    this.edKey = config.JWT_PUBLIC_KEY ? createPublicKey(config.JWT_PUBLIC_KEY) : null;
  }

  async authenticate(request: FastifyRequest, requirement: AuthRequirement): Promise<AuthContext> {
    return this.authenticateKnown(request, requirement) ?? (await this.authenticateMissed(request, requirement));
  }

  /**
   * The hot path, without IO or promises: a known API key. Returns null when the answer needs a
   * catch-up with the log (a key the view does not know) or a JWT check; call {@link authenticateMissed} (or {@link authenticate}) then.
   * @throws ApiError as {@link authenticate} does, for what it can decide here
   */
  authenticateKnown(request: FastifyRequest, requirement: AuthRequirement): AuthContext | null {
    const credential = bearer(request);
    const cached = this.cache.get(credential);
    if (cached !== undefined && cached.version === this.view.version) {
      // The map found the entry by string equality; the secret is still checked in constant time.
      const presented = Buffer.from(credential, 'latin1');
      if (presented.length === cached.secret.length && timingSafeEqual(presented, cached.secret)) return permitted(cached.auth, requirement);
    }
    if (!API_KEY_PATTERN.test(credential)) {
      if (requirement.jwt && credential.split('.').length === 3) return null;
      throw PlatformErrors.invalidCredentials();
    }
    const hash = hashApiKey(credential);
    if (!this.view.state.keysByHash.has(hash)) return null;
    const auth = this.fromApiKey(hash);
    if (auth) this.remember(credential, auth);
    else this.cache.delete(credential);
    return permitted(auth, requirement);
  }

  /** Keeps a verified key's identity (see {@link cache}). */
  private remember(credential: string, auth: AuthContext): void {
    this.cache.delete(credential);
    if (this.cache.size >= AUTH_CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(credential, { secret: Buffer.from(credential, 'latin1'), version: this.view.version, auth });
  }

  /**
   * The rest of {@link authenticate} once {@link authenticateKnown} returned null for this request (a key the
   * view does not know yet, or a JWT): the catch-up with the log, then the verdict. Lets the edge's hook
   * continue without running the hot path's checks a second time.
   * @throws ApiError as {@link authenticate} does
   */
  async authenticateMissed(request: FastifyRequest, requirement: AuthRequirement): Promise<AuthContext> {
    const credential = bearer(request);
    let auth: AuthContext | null = null;
    if (API_KEY_PATTERN.test(credential)) {
      const hash = hashApiKey(credential);
      auth = this.fromApiKey(hash);
      // A key this view has never seen may have been created a moment ago by another process (the
      // CLI): catch up with the log once (rate-bounded, shared between callers) before refusing it.
      if (!auth && !this.view.state.keysByHash.has(hash)) {
        await this.view.catchUpForUnknownCredential();
        auth = this.fromApiKey(hash);
      }
      if (auth) this.remember(credential, auth);
    } else if (requirement.jwt && credential.split('.').length === 3) {
      auth = await this.fromJwt(credential);
    }
    return permitted(auth, requirement);
  }

  /** The key whose SHA-256 is `hash`, if the view knows it, it is not revoked and its tenant exists. */
  private fromApiKey(hash: string): AuthContext | null {
    const record = this.view.state.keysByHash.get(hash);
    if (!record || !hashesEqual(record.keyHash, hash) || record.revokedAt) return null;
    const tenant = this.view.state.tenants.get(record.tenantId);
    if (!tenant) return null;
    return { tenantId: tenant.tenantId, tenant, keyId: record.keyId, permissions: record.permissions, test: record.test, via: 'api_key' };
  }

  private async fromJwt(token: string): Promise<AuthContext | null> {
    const keys: Array<[Uint8Array | KeyObject, string]> = [];
    if (this.hsKey) keys.push([this.hsKey, 'HS256']);
    if (this.edKey) keys.push([this.edKey, 'EdDSA']);
    for (const [key, alg] of keys) {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: [alg], requiredClaims: ['exp'] });
        const tenantId = typeof payload.tenant_id === 'string' ? payload.tenant_id : typeof payload.sub === 'string' ? payload.sub : null;
        if (tenantId && !this.view.state.tenants.has(tenantId)) await this.view.catchUpForUnknownCredential();
        const tenant = tenantId ? this.view.state.tenants.get(tenantId) : undefined;
        if (!tenant) return null;
        return { tenantId: tenant.tenantId, tenant, keyId: null, permissions: ['read'], test: false, via: 'jwt' };
      } catch {
        // try the next algorithm
      }
    }
    return null;
  }
}
