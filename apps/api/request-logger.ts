import type { FastifyBaseLogger } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger (Fastify's `request.log`) that makes its pino child, bound to the request id, only
 * when a message at an enabled level is logged: with request logging below the configured level (e.g.
 * `LOG_LEVEL=warn`) a call logs nothing and now also builds no child logger (issue 18: the child and its
 * serialized bindings were about 2% of the HTTP thread's time per call). The level it checks is the
 * parent's at the time of the call, as a child made then would inherit it.
 */
export class LazyChildLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: Record<string, unknown>,
  ) {}

  private logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  private enabled(level: Level): boolean {
    if (this.made) return true;
    const p = this.parent as FastifyBaseLogger & { isLevelEnabled?: (l: string) => boolean };
    return p.isLevelEnabled ? p.isLevelEnabled(level) : true;
  }

  get level(): string {
    return this.made ? this.made.level : this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: unknown[]): void {
    if (this.enabled('fatal')) (this.logger().fatal as (...a: unknown[]) => void)(...args);
  }
  error(...args: unknown[]): void {
    if (this.enabled('error')) (this.logger().error as (...a: unknown[]) => void)(...args);
  }
  warn(...args: unknown[]): void {
    if (this.enabled('warn')) (this.logger().warn as (...a: unknown[]) => void)(...args);
  }
  info(...args: unknown[]): void {
    if (this.enabled('info')) (this.logger().info as (...a: unknown[]) => void)(...args);
  }
  debug(...args: unknown[]): void {
    if (this.enabled('debug')) (this.logger().debug as (...a: unknown[]) => void)(...args);
  }
  trace(...args: unknown[]): void {
    if (this.enabled('trace')) (this.logger().trace as (...a: unknown[]) => void)(...args);
  }
  silent(): void {}

  child(bindings: Record<string, unknown>, options?: Record<string, unknown>): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: a {@link LazyChildLogger}, or the child at once when the route sets
 * its own level or serializers (the child must carry them).
 */
export function lazyChildLoggerFactory(logger: FastifyBaseLogger, bindings: Record<string, unknown>, options: Record<string, unknown>): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options);
  return new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
