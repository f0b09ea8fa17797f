import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

/** Debian's chromium (apt-get install chromium); never a downloaded browser. */
export const CHROMIUM = process.env["RELAYTRACE_CHROMIUM"] ?? "/usr/bin/chromium";

export interface OpenedPage {
  page: Page;
  /** Every request the page tried to make, other than the file itself. */
  requests: string[];
  /** Console errors and uncaught page errors. */
  errors: string[];
}

export interface BrowserSession {
  /** Opens a page and waits for `ready` (default: the viewer's page is drawn). */
  open(fileUrl: string, ready?: string): Promise<OpenedPage>;
  close(): Promise<void>;
}

/**
 * A headless chromium with a fresh profile (`--user-data-dir`, set by playwright from `profile`) and every background
 * network feature off.
 */
export async function launchChromium(): Promise<BrowserSession> {
  const profile = await mkdtemp(join(tmpdir(), "relaytrace-chromium-"));
  // A persistent context is how playwright takes a profile directory (a fresh one per session).
  const browser: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 800 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    async open(fileUrl, ready = '#relaytrace-viewer[data-ready="true"]') {
      const page = await browser.newPage();
      const requests: string[] = [];
      const errors: string[] = [];
      page.on("request", (r) => {
        if (r.url() !== fileUrl) requests.push(r.url());
      });
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(fileUrl);
      await page.waitForSelector(ready);
      return { page, requests, errors };
    },
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
