import Fastify, { type FastifyBaseLogger, type FastifyReply } from 'fastify';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { randomBytes } from 'node:crypto';
import {
  hasZodFastifySchemaValidationErrors,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Platform } from '../platform/types.ts';
import { clientErrorResponse, registerEdge, setBillingHeaders } from './edge.ts';
import { lazyChildLoggerFactory } from './request-logger.ts';
import { edgeDocumentedTransform, shareIdempotencyKeyParameter } from './openapi-edge.ts';
import { documentTransform } from './openapi-docs.ts';
import { SWAGGER_UI_BRANDING } from './docs-branding.ts';
import { responseSerializerCompiler } from './serializer.ts';
import { ApiError, PlatformErrors, renderError } from './errors.ts';
import { registerRoutes } from './routes/index.ts';
import { MAX_JSON_BODY_DEPTH, nestedDeeperThan } from '../../domain/shared/json-depth.ts';

export type { ApiApp } from './types.ts';
import type { ApiApp } from './types.ts';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Request ids `req_<32 hex>`: 64 random bits per process boot, then a counter (64 bits wide), so ids are unique
 * across restarts and processes (with overwhelming probability) without a random UUID per request.
 */
const REQUEST_ID_PREFIX = `req_${randomBytes(8).toString('hex')}`;
let requestCounter = 0;
function nextRequestId(): string {
  requestCounter += 1;
  return `${REQUEST_ID_PREFIX}${requestCounter.toString(16).padStart(16, '0')}`;
}

/**
 * Builds the HTTP edge as a Fastify instance (not listening), so tests can `inject()` or `listen()` it.
 * `extend` may register extra routes before the app is ready (tests register a priced route this way).
 */
export async function buildApp(ctx: Platform, extend?: (app: ApiApp) => void | Promise<void>): Promise<ApiApp> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    childLoggerFactory: lazyChildLoggerFactory as never,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : nextRequestId();
    },
    trustProxy: false,
    bodyLimit: 1024 * 1024,
    // Path parameters up to 1,024 characters reach the routes, whose schemas bound each id (subject ids:
    // 256 characters, which percent-encoded may take three times that); Fastify's default (100) refused a
    // legal subject id before its route could answer.
    routerOptions: { maxParamLength: 1024 },
    // Requests Node's HTTP parser refuses (headers over 16 KiB, malformed HTTP) never reach a route: the
    // answer is written to the socket in the spec's shape, as Fastify's own handler does with its body.
    clientErrorHandler: (error, socket) => {
      const e = error as Error & { code?: string };
      if (e.code === 'ECONNRESET' || socket.destroyed) return;
      if (socket.writable) socket.write(clientErrorResponse(e.code, nextRequestId(), ctx.clock.now()));
      socket.destroy(e);
    },
    // URLs Fastify's router refuses itself (bad percent-encoding, a parameter over maxParamLength) answer in
    // the spec's structured shape, through the edge's hooks (billing headers), not Fastify's own body.
    frameworkErrors: (error, request, reply) => {
      const e = error as { code?: string };
      const apiError =
        e.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new ApiError(414, 'uri_too_long', 'A path segment of the URL is longer than 1024 characters')
          : new ApiError(400, 'invalid_request', 'The URL is not valid (malformed percent-encoding)');
      // Unrouted, so no edge hook runs: the headers of an unauthenticated answer are set here.
      setBillingHeaders(ctx, request, reply as FastifyReply);
      void (reply as FastifyReply).status(apiError.status).send(renderError(apiError, 'structured'));
    },
  }).withTypeProvider<ZodTypeProvider>();

  // JSON bodies as Fastify parses them (prototype poisoning refused), then refused past
  // MAX_JSON_BODY_DEPTH levels: stored values must stay within what the read models' JSON functions parse.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parseJson(request, body as string, (error: Error | null, value?: unknown) => {
      if (error) return done(error, undefined);
      if (nestedDeeperThan(value, MAX_JSON_BODY_DEPTH)) {
        return done(Object.assign(new Error(`The JSON body nests deeper than ${MAX_JSON_BODY_DEPTH} levels`), { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' }), undefined);
      }
      done(null, value);
    });
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sello API',
        version: '1.0.0',
        description:
          'Identity and KYC API for Mexico. Authenticate with `Authorization: Bearer sk_live_…` (or `sk_test_…`). ' +
          'Every response carries the billing headers X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Tier, ' +
          'X-RateLimit-Billing-Method, X-Credit-Balance, X-Credit-Cost and X-Request-Id. Credits are charged only on 2xx answers. ' +
          'This document is served at `/openapi.json` (no credentials needed); the reference you may be reading is at `/docs`.',
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key (sk_live_/sk_test_) or, on e-mail endpoints, a dashboard session JWT' } } },
      security: [{ bearerAuth: [] }],
    },
    // The type provider's transform plus the edge's answers (401/403/429) and the billing headers.
    transform: edgeDocumentedTransform,
    // Operation ids, upload bodies and binary answers the routes' validation schemas do not carry.
    transformObject: (input) => shareIdempotencyKeyParameter(documentTransform(input)),
  });
  app.addHook('onRoute', (route) => {
    // Swagger UI's own routes are public like the document itself.
    if (route.url.startsWith('/docs')) route.config = { ...(route.config ?? {}), auth: false };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', ...SWAGGER_UI_BRANDING });

  registerEdge(app, ctx);

  app.setErrorHandler((error, request, reply) => {
    const shape = request.routeOptions.config?.errorShape ?? 'structured';
    let apiError: ApiError;
    if (error instanceof ApiError) apiError = error;
    else if (hasZodFastifySchemaValidationErrors(error)) {
      const issues = error.validation.map((v) => ({ path: v.instancePath || '', message: v.message }));
      const first = issues[0];
      apiError = PlatformErrors.validation(`Invalid request${first ? `: ${first.path ? `${first.path.replace(/^\//, '')} ` : ''}${first.message}` : ''}`.trim(), issues);
    } else {
      const e = error as { statusCode?: number; code?: string; message?: string };
      const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
      if (status >= 500) {
        request.log.error({ err: error }, 'unhandled error');
        apiError = PlatformErrors.internal();
      } else if (status === 413 || e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || e.code === 'FST_REQ_FILE_TOO_LARGE') {
        apiError = new ApiError(413, 'payload_too_large', 'Request body too large');
      } else if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        apiError = new ApiError(415, 'unsupported_media_type', 'Unsupported Content-Type');
      } else {
        apiError = new ApiError(status, 'invalid_request', e.message ?? 'Invalid request');
      }
    }
    if (apiError.headers) for (const [k, v] of Object.entries(apiError.headers)) reply.header(k, v);
    reply.status(apiError.status).send(renderError(apiError, shape));
  });

  app.setNotFoundHandler((request, reply) => {
    const e = PlatformErrors.notFound(request.method, request.url.split('?')[0]!);
    reply.status(404).send(renderError(e, 'structured'));
  });

  app.get(
    '/openapi.json',
    { config: { auth: false }, schema: { hide: true } },
    async () => app.swagger(),
  );

  // @fastify/multipart adds three hooks to every route of the scope it is registered in; the platform's
  // own routes (balance, keys, status: the cheapest and most called) take no uploads, so they live
  // outside that scope and pay none of them (issue 18: edge overhead).
  await registerRoutes(app, ctx, (c) => c.name === 'platform');
  await app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: 10 * 1024 * 1024, files: 4, fields: 40, fieldSize: 1024 * 1024, parts: 60 },
    });
    await registerRoutes(scope as unknown as ApiApp, ctx, (c) => c.name !== 'platform');
  });
  if (extend) await extend(app);
  return app;
}
