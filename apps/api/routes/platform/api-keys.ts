import { z } from 'zod';
import { PERMISSIONS } from '../../../../domain/tenancy/api-key.ts';
import { TenancyError, createApiKey, revokeApiKey } from '../../../../domain/tenancy/operations.ts';
import { apiKeysCollection } from '../../../../projections/api-keys/api-keys.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';

const ApiKeyItem = z.object({
  id: z.string().meta({ example: 'key_5f0c…' }),
  name: z.string().nullable(),
  hint: z.string().describe('Prefix and last four characters; the secret is never returned after creation.').meta({ example: 'sk_test_…9fQa' }),
  mode: z.enum(['live', 'test']),
  permissions: z.array(z.enum(PERMISSIONS)),
  status: z.enum(['active', 'revoked']),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});

export const ListApiKeysResponse = z.object({ success: z.literal(true), data: z.array(ApiKeyItem) });
export const CreateApiKeyBody = z.object({
  permissions: z.array(z.enum(PERMISSIONS)).min(1).describe('Permissions of the new key: read, write, admin.'),
  mode: z.enum(['live', 'test']).default('live'),
  name: z.string().min(1).max(100).optional(),
});
export const CreateApiKeyResponse = z.object({
  success: z.literal(true),
  data: ApiKeyItem.extend({ key: z.string().describe('The secret key. Shown once: store it now.') }),
});
const KeyParams = z.object({ keyId: z.string().min(1).max(100) });
const RevokeResponse = z.object({ success: z.literal(true), data: z.object({ message: z.string(), key_id: z.string() }) });

/**
 * `GET /v1/api-keys` (read): the tenant's keys without secrets. Beyond the spec, key management for
 * keys with `admin`: `POST /v1/api-keys` (the secret is returned once) and `DELETE /v1/api-keys/:keyId`
 * (revocation takes effect on the next request).
 */
export function registerApiKeys(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/v1/api-keys',
    config: { auth: { permission: 'read' }, rateClass: 'light' },
    schema: { tags: ['api-keys'], summary: "List the tenant's API keys", response: { 200: ListApiKeysResponse } },
    handler: async (request) => {
      await ctx.projections.catchUp();
      const keys = await (await apiKeysCollection(ctx.readModels)).find({ tenant_id: request.auth!.tenantId }, { sort: [{ field: 'created_at', order: 'asc' }] });
      return { success: true as const, data: keys.map(({ tenant_id: _t, ...k }) => k) };
    },
  });

  app.route({
    method: 'POST',
    url: '/v1/api-keys',
    config: { auth: { permission: 'admin' }, rateClass: 'light' },
    schema: { tags: ['api-keys'], summary: 'Create an API key (admin)', body: CreateApiKeyBody, response: { 201: CreateApiKeyResponse } },
    handler: async (request, reply) => {
      const body = request.body as z.infer<typeof CreateApiKeyBody>;
      const { key, keyId } = await createApiKey({
        store: ctx.events,
        tenantId: request.auth!.tenantId,
        permissions: body.permissions,
        test: body.mode === 'test',
        name: body.name ?? null,
        now: () => ctx.clock.now(),
      });
      await Promise.all([ctx.tenancy.catchUp(), ctx.projections.catchUp()]);
      const record = (await (await apiKeysCollection(ctx.readModels)).get(keyId))!;
      const { tenant_id: _t, ...item } = record;
      reply.status(201);
      return { success: true as const, data: { ...item, key } };
    },
  });

  app.route({
    method: 'DELETE',
    url: '/v1/api-keys/:keyId',
    config: { auth: { permission: 'admin' }, rateClass: 'light' },
    schema: { tags: ['api-keys'], summary: 'Revoke an API key (admin)', params: KeyParams, response: { 200: RevokeResponse } },
    handler: async (request) => {
      const { keyId } = request.params as z.infer<typeof KeyParams>;
      try {
        await revokeApiKey({ store: ctx.events, keyId, tenantId: request.auth!.tenantId, now: () => ctx.clock.now() });
      } catch (error) {
        if (error instanceof TenancyError && error.code === 'unknown_key') throw new ApiError(404, 'key_not_found', `API key ${keyId} not found`);
        if (error instanceof TenancyError && error.code === 'already_revoked') throw new ApiError(409, 'key_already_revoked', error.message);
        throw error;
      }
      await Promise.all([ctx.tenancy.catchUp(), ctx.projections.catchUp()]);
      return { success: true as const, data: { message: 'API key revoked', key_id: keyId } };
    },
  });
}
