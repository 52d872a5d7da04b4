import { ApiError } from '../../errors.ts';
import { UsageError } from '../../../../domain/usage/errors.ts';

/** Runs `fn`, turning a {@link UsageError} into the structured API error of its code. */
export async function mapUsageErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof UsageError) throw new ApiError(err.status, err.code, err.message, err.details);
    throw err;
  }
}

/** Route config of every `/v1/usage/*` route: `read` permission, light rate class, structured errors. */
export const USAGE_ROUTE_CONFIG = { auth: { permission: 'read' as const }, rateClass: 'light' as const, errorShape: 'structured' as const };
