/**
 * Headless Debian chromium for the browser tests (DEVELOPERS.md "Browser tests"): playwright-core drives
 * `/usr/bin/chromium` (Debian package `chromium`, installed by `.ci/run` from .ci/apt-packages.txt) with a
 * fresh `--user-data-dir` and the flags that keep it off the network (without them it keeps trying to
 * reach the internet, and the network is closed).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM = '/usr/bin/chromium';
/** True when {@link CHROMIUM} is installed; browser suites skip (with a printed reason) otherwise. */
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
/** Screenshots of the browser tests (look at them: a page is judged by what a person sees). */
export const ARTIFACTS = path.resolve(import.meta.dirname, '../artifacts');

/** Flags DEVELOPERS.md asks for: no sandbox (root in CI), no GPU, no background traffic, no first-run UI. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] as const;

/** A persistent chromium context on a fresh profile directory; `close()` ends it and removes the profile. */
export interface Browser {
  ctx: BrowserContext;
  close(): Promise<void>;
}

/**
 * Starts headless chromium on a new temporary profile, and makes sure {@link ARTIFACTS} exists.
 * @param viewport the pages' size in CSS px (default 1280 x 900)
 * @param extraArgs flags added after {@link CHROMIUM_ARGS}
 * @throws when chromium cannot start (check {@link HAVE_CHROMIUM} first)
 */
export async function launchBrowser(viewport: { width: number; height: number } | null = { width: 1280, height: 900 }, extraArgs: string[] = []): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const profile = mkdtempSync(path.join(tmpdir(), 'sello-chromium-'));
  try {
    const ctx = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_ARGS, ...extraArgs],
      ...(viewport ? { viewport } : {}),
    });
    return {
      ctx,
      async close() {
        await ctx.close().catch(() => undefined);
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

/** Prints why a browser suite is skipped when chromium is absent (call once at module level). */
export function warnIfNoChromium(suite: string): void {
  if (!HAVE_CHROMIUM) console.warn(`${suite} skipped: ${CHROMIUM} is absent (Debian package chromium, .ci/apt-packages.txt)`);
}
