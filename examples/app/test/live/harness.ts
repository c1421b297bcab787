import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createApp } from '../../src/app.js';
import { type AppConfig, loadConfig } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';

/** The live service that `sdk/live-service.sh app` started (it exports these). */
export function liveEnv(): { ENGRAM_BASE_URL: string; ENGRAM_API_KEY: string } {
  const { ENGRAM_BASE_URL, ENGRAM_API_KEY } = process.env;
  if (!ENGRAM_BASE_URL || !ENGRAM_API_KEY) throw new Error('ENGRAM_BASE_URL and ENGRAM_API_KEY must be set (run sdk/live-service.sh app)');
  return { ENGRAM_BASE_URL, ENGRAM_API_KEY };
}

export interface RunningApp {
  url: string;
  config: AppConfig;
  logs: string[];
  close: () => Promise<void>;
}

/** Starts the app in this process on a free port of 127.0.0.1, configured as `npm start` would be from `env`. */
export async function startApp(env: Record<string, string | undefined>): Promise<RunningApp> {
  const config = loadConfig({ ...liveEnv(), PORT: '0', ...env });
  const logs: string[] = [];
  const server = createApp(createDeps(config, (line) => logs.push(line))).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    logs,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** Requests the page tried to make anywhere but the app: each was refused. */
  blocked: string[];
  /** Uncaught errors of the page's scripts. */
  errors: string[];
  close: () => Promise<void>;
}

/**
 * Debian's Chromium, driven by playwright-core, with a fresh profile and every request that is not to the
 * app refused, so that a page that works here works offline.
 */
export async function openBrowser(appUrl: string, viewport = { width: 1320, height: 1000 }): Promise<BrowserSession> {
  const profile = mkdtempSync(join(tmpdir(), 'engram-app-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const origin = new URL(appUrl).origin;
  const blocked: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url === origin) return route.continue();
    blocked.push(url);
    return route.abort('blockedbyclient');
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (error) => errors.push(error.message));
  return {
    context,
    page,
    blocked,
    errors,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * On the Memory page, moves the time slider with the keyboard (Home, then ArrowRight) to the last instant
 * before `before`, waits until the graph and facts of that instant are on show, and returns the instant.
 */
export async function slideToLastInstantBefore(page: Page, before: string): Promise<string> {
  const slider = page.getByLabel('Instant of the owner\'s history');
  await slider.focus();
  await slider.press('Home');
  let shown = '';
  for (;;) {
    await slider.press('ArrowRight');
    const next = (await page.locator('#instant').getAttribute('data-as-of')) ?? 'now';
    if (next === 'now' || Date.parse(next) >= Date.parse(before)) break;
    shown = next;
  }
  if (!shown) throw new Error(`the slider has no instant before ${before}`);
  await slider.press('ArrowLeft');
  await page.locator(`#memory-panels[data-shown-as-of="${shown}"]`).waitFor();
  return shown;
}
