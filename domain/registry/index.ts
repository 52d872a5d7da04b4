/** Registry lookups' domain: request validation, error types, events, privacy helpers. */
export * from './errors.ts';
export * from './validate-request.ts';
export * from './privacy.ts';
export * from './events.ts';
