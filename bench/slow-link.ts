import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Cookie } from "playwright-core";
import { createDb } from "../db/client";
import { seed } from "../server/seed";
import { loadConfig } from "../server/config";
import { CHROMIUM_ARGS, FULL_CHROMIUM_PATH } from "../test/helpers/chromium";
import { buildPages, startApp } from "./app";
import { freePort, median, printTable, type Row } from "./lib";
import { ADMIN, fillDatabase, MANAGER, sessionCookies } from "./small-install";

/**
 * Issue 41 item 15, the slow link. /auth (no session), the admin's dashboard (/) and the manager's /leadpanel,
 * each loaded RUNS times cold (a new browser context per load) in full Chromium on an emulated link of 400 kbit/s
 * down and up with 300 ms latency (CDP Network.emulateNetworkConditions, set before the navigation starts).
 *
 * Interactive: the moment the root layout's effect sets `data-hydrated` on <html> (app/root.tsx). React runs a
 * parent's effects after its children's, so by then every route of the page has hydrated and run its effects: its
 * click and key handlers are attached. The page records it itself (a MutationObserver installed before the document
 * is parsed), in ms since the navigation started (performance.now()). Painted: first-contentful-paint, the same
 * clock. Both medians of RUNS, min-max beside.
 *
 * Bytes and requests: as Chromium counts them (CDP Network.loadingFinished encodedDataLength: headers and the body as
 * sent, compressed), until interactive, and in all until the network is quiet (lazy chunks after hydration, the
 * first poll). Scripts: the JavaScript responses among them. /__manifest: the route-discovery requests (a page that
 * asks for the manifest pays a round trip for it).
 *
 * Served two ways: straight from the app (HTTP/1.1 on loopback: six connections, each request its own round trip
 * and its whole headers), and, where Caddy is installed, through Caddy as deploy/Caddyfile serves production (HTTPS
 * with Caddy's own certificate, HTTP/2: one connection, every request at once, headers compressed).
 *
 * Target (issue 41): interactive ≤ 3 s on each of the three pages.
 */
const RUNS = Number(process.env.BENCH_RUNS || 5);
/**
 * The baseline: this bench (its first version, 9929c34) on the code before decision 088 (main at 63dd515), served by
 * the app over HTTP/1.1, 2026-12-01, median of 5 loads. Printed beside each run's own figures.
 */
const BEFORE: Row[] = [
  {
    page: "/auth",
    role: "—",
    "painted s": 1.54,
    "interactive s": 4.53,
    "KB to interactive": 165.5,
    "requests (scripts)": "18 (16)",
    "/__manifest": 1,
  },
  {
    page: "/",
    role: "admin",
    "painted s": 1.62,
    "interactive s": 6.34,
    "KB to interactive": 235.2,
    "requests (scripts)": "39 (37)",
    "/__manifest": 1,
  },
  {
    page: "/leadpanel",
    role: "manager",
    "painted s": 1.57,
    "interactive s": 6.08,
    "KB to interactive": 231.1,
    "requests (scripts)": "35 (33)",
    "/__manifest": 2,
  },
];
/**
 * The baseline of decision 090: this bench on the code after decision 088 (h41 at a05957c), served by the app over
 * HTTP/1.1, 2026-12-01 08:32 UTC (load 1.79), median of 5 loads.
 */
const BEFORE_090: Row[] = [
  {
    page: "/auth",
    role: "—",
    "painted s": 1.39,
    "interactive s": 2.78,
    "KB to interactive": 94.2,
    "requests (scripts)": "12 (10)",
  },
  {
    page: "/",
    role: "admin",
    "painted s": 1.25,
    "interactive s": 3.87,
    "KB to interactive": 135.1,
    "requests (scripts)": "32 (30)",
  },
  {
    page: "/leadpanel",
    role: "manager",
    "painted s": 1.22,
    "interactive s": 3.93,
    "KB to interactive": 139.3,
    "requests (scripts)": "31 (29)",
  },
];
/**
 * The baseline of decision 091: this bench on the code after decision 090 (hA at 337e78d), 2026-12-02 00:09 UTC
 * (load 3.37 by `uptime`, a shared machine), median of 5 loads, served both ways.
 */
const BEFORE_091: Row[] = [
  {
    served: "app, HTTP/1.1",
    page: "/auth",
    role: "—",
    "painted s": 0.56,
    "interactive s": 2.47,
    "KB to interactive": 94.3,
    "requests (scripts)": "9 (8)",
  },
  {
    served: "app, HTTP/1.1",
    page: "/",
    role: "admin",
    "painted s": 0.56,
    "interactive s": 3.01,
    "KB to interactive": 119.8,
    "requests (scripts)": "12 (11)",
  },
  {
    served: "app, HTTP/1.1",
    page: "/leadpanel",
    role: "manager",
    "painted s": 0.56,
    "interactive s": 3.05,
    "KB to interactive": 122.8,
    "requests (scripts)": "11 (10)",
  },
  {
    served: "Caddy, HTTPS, HTTP/2",
    page: "/auth",
    role: "—",
    "painted s": 0.57,
    "interactive s": 2.51,
    "KB to interactive": 91.1,
    "requests (scripts)": "9 (8)",
  },
  {
    served: "Caddy, HTTPS, HTTP/2",
    page: "/",
    role: "admin",
    "painted s": 0.64,
    "interactive s": 3.11,
    "KB to interactive": 115.5,
    "requests (scripts)": "12 (11)",
  },
  {
    served: "Caddy, HTTPS, HTTP/2",
    page: "/leadpanel",
    role: "manager",
    "painted s": 0.59,
    "interactive s": 3.06,
    "KB to interactive": 118.9,
    "requests (scripts)": "11 (10)",
  },
];
const TARGET_S = 3;
const LINK = { latencyMs: 300, kbitPerSecond: 400 };
const KB = 1024;
/** What Chromium sends over HTTPS. */
const ACCEPT_ENCODING = "gzip, deflate, br, zstd";

interface Load {
  painted: number;
  interactive: number;
  bytesToInteractive: number;
  requestsToInteractive: number;
  scriptsToInteractive: number;
  bytes: number;
  requests: number;
  manifestFetches: number;
  /** Each response: path, bytes, when it started and finished (ms since the navigation started). */
  waterfall: Array<{ path: string; kb: number; encoding: string; start: number; end: number }>;
}

declare global {
  interface Window {
    __interactiveAt?: number;
  }
}

async function slowLoad(browser: Browser, baseUrl: string, cookies: Cookie[], screen: string): Promise<Load> {
  // Caddy's certificate is its own (tls internal); the browser is told to take it.
  const context = await browser.newContext({ baseURL: baseUrl, ignoreHTTPSErrors: true });
  // Cookies do not depend on the port: the sessions made on the app's origin are good on Caddy's. A cold cache has
  // not the stylesheet either: the cookie saying the browser was sent it (app/stylesheet.server.ts) stays out.
  const session = cookies.filter((cookie) => cookie.name !== "css");
  if (session.length) await context.addCookies(session);
  const page = await context.newPage();
  await page.addInitScript(() => {
    new MutationObserver((_records, observer) => {
      if (document.documentElement?.dataset.hydrated !== "true") return;
      window.__interactiveAt = performance.now();
      observer.disconnect();
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-hydrated"] });
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  // Chromium offers brotli over HTTPS only; the app is served over HTTPS (deploy/Caddyfile), the bench over plain
  // HTTP on loopback: the browser asks as it does over HTTPS.
  await cdp.send("Network.setExtraHTTPHeaders", { headers: { "Accept-Encoding": ACCEPT_ENCODING } });
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: LINK.latencyMs,
    downloadThroughput: (LINK.kbitPerSecond * 1000) / 8,
    uploadThroughput: (LINK.kbitPerSecond * 1000) / 8,
  });
  // CDP timestamps are seconds on the browser's monotonic clock; the first request (the document) is the zero.
  const requests = new Map<string, { path: string; type: string; start: number; encoding?: string }>();
  const finished: Array<{ path: string; type: string; bytes: number; start: number; end: number; encoding: string }> = [];
  let zero = NaN;
  cdp.on("Network.requestWillBeSent", (e) => {
    if (Number.isNaN(zero)) zero = e.timestamp;
    requests.set(e.requestId, { path: new URL(e.request.url).pathname, type: e.type ?? "", start: e.timestamp });
  });
  cdp.on("Network.responseReceived", (e) => {
    const request = requests.get(e.requestId);
    const headers = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
    if (request) request.encoding = headers["content-encoding"] ?? "none";
  });
  cdp.on("Network.loadingFinished", (e) => {
    const request = requests.get(e.requestId);
    if (!request) return;
    const { path, type, start, encoding = "?" } = request;
    finished.push({ path, type, bytes: e.encodedDataLength, start, end: e.timestamp, encoding });
  });
  await page.goto(screen, { waitUntil: "commit", timeout: 120_000 });
  await page.waitForFunction(() => window.__interactiveAt !== undefined, null, { polling: 50, timeout: 120_000 });
  // The page's clock starts at the navigation; CDP's at the document request (the same moment, within a ms).
  const { interactive, painted } = await page.evaluate(() => ({
    interactive: window.__interactiveAt!,
    painted: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN,
  }));
  await page.waitForLoadState("networkidle");
  await page.waitForTimeout(500);
  await context.close();

  const ms = (t: number) => (t - zero) * 1000;
  const before = finished.filter((f) => ms(f.end) <= interactive);
  const sum = (list: typeof finished) => list.reduce((total, f) => total + f.bytes, 0);
  return {
    painted,
    interactive,
    bytesToInteractive: sum(before),
    requestsToInteractive: before.length,
    scriptsToInteractive: before.filter((f) => f.type === "Script").length,
    bytes: sum(finished),
    requests: finished.length,
    manifestFetches: [...requests.values()].filter((r) => r.path === "/__manifest").length,
    waterfall: finished
      .map((f) => ({
        path: f.path,
        kb: Math.round((f.bytes / KB) * 10) / 10,
        encoding: f.encoding,
        start: Math.round(ms(f.start)),
        end: Math.round(ms(f.end)),
      }))
      .sort((a, b) => a.start - b.start || a.end - b.end),
  };
}

/** Caddy in front of the app, HTTPS on a free port (null where Caddy is not installed). */
async function startCaddy(appOrigin: string): Promise<{ origin: string; stop: () => void } | null> {
  if (spawnSync("caddy", ["version"]).status !== 0) return null;
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-caddy-"));
  const caddyfile = path.join(dir, "Caddyfile");
  fs.writeFileSync(
    caddyfile,
    [
      "{",
      "\tadmin off",
      "\tskip_install_trust",
      "\tauto_https disable_redirects",
      "}",
      `https://127.0.0.1:${port} {`,
      "\ttls internal",
      `\treverse_proxy ${new URL(appOrigin).host}`,
      "}",
      "",
    ].join("\n"),
  );
  const env = { ...process.env, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, HOME: dir };
  const caddy: ChildProcess = spawn("caddy", ["run", "--config", caddyfile, "--adapter", "caddyfile"], { env, stdio: "ignore" });
  const origin = `https://127.0.0.1:${port}`;
  const answers = () =>
    new Promise<boolean>((resolve) => {
      https
        .get(`${origin}/api/v1/health`, { rejectUnauthorized: false }, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        })
        .on("error", () => resolve(false));
    });
  for (let tries = 0; !(await answers()); tries++) {
    if (tries > 100 || caddy.exitCode !== null) {
      caddy.kill();
      throw new Error("Caddy did not answer");
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    origin,
    stop: () => {
      caddy.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function main() {
  buildPages("slow-link");
  const handle = await createDb({ dataDir: "memory://" });
  await handle.migrate();
  await seed(handle.db, ADMIN);
  await fillDatabase(handle.db);
  const config = loadConfig({ LOG_LEVEL: "silent" });
  const app = await startApp({ handle, config, web: true });
  const browser = await chromium.launch({ executablePath: FULL_CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  let stopCaddy: (() => void) | null = null;
  try {
    const pages: Array<[screen: string, role: string, cookies: Cookie[]]> = [
      ["/auth", "—", []],
      ["/", "admin", await sessionCookies(browser, app.origin, ADMIN)],
      ["/leadpanel", "manager", await sessionCookies(browser, app.origin, MANAGER)],
    ];
    const rows: Row[] = [];
    const slowest: Array<[string, Load]> = [];
    const caddy = await startCaddy(app.origin).catch((error: Error) => {
      console.log(`\n(Caddy not measured: ${error.message})`);
      return null;
    });
    stopCaddy = caddy?.stop ?? null;
    const servers: Array<[served: string, origin: string]> = [["app, HTTP/1.1", app.origin]];
    if (caddy) servers.push(["Caddy, HTTPS, HTTP/2", caddy.origin]);
    for (const [served, origin] of servers)
      for (const [screen, role, cookies] of pages) {
        const loads: Load[] = [];
        for (let i = 0; i < RUNS; i++) loads.push(await slowLoad(browser, origin, cookies, screen));
        const s = (pick: (l: Load) => number) => Math.round(median(loads.map(pick)) / 10) / 100;
        const range = (pick: (l: Load) => number) =>
          `${(Math.min(...loads.map(pick)) / 1000).toFixed(2)}-${(Math.max(...loads.map(pick)) / 1000).toFixed(2)}`;
        const kb = (pick: (l: Load) => number) => Math.round((median(loads.map(pick)) / KB) * 10) / 10;
        const interactive = s((l) => l.interactive);
        rows.push({
          served,
          page: screen,
          role,
          "painted s": s((l) => l.painted),
          "interactive s": interactive,
          "interactive min-max": range((l) => l.interactive),
          "KB to interactive": kb((l) => l.bytesToInteractive),
          "requests (scripts)": `${median(loads.map((l) => l.requestsToInteractive))} (${median(loads.map((l) => l.scriptsToInteractive))})`,
          "KB in all": kb((l) => l.bytes),
          "requests in all": median(loads.map((l) => l.requests)),
          "/__manifest": Math.max(...loads.map((l) => l.manifestFetches)),
          target: `≤ ${TARGET_S} s: ${interactive <= TARGET_S ? "met" : "MISSED"}`,
        });
        slowest.push([`${screen} (${served})`, [...loads].sort((a, b) => a.interactive - b.interactive)[Math.floor(loads.length / 2)]]);
      }
    printTable(
      `Slow link: ${LINK.kbitPerSecond} kbit/s down and up, ${LINK.latencyMs} ms latency, cold cache, full Chromium; median of ${RUNS} loads, ` +
        "served by the app itself and through Caddy as in production " +
        "(seconds since the navigation started; interactive = html[data-hydrated] set, every route hydrated)",
      rows,
    );
    printTable("Before decision 088 (the same bench on main at 63dd515, app over HTTP/1.1, median of 5, 2026-12-01)", BEFORE);
    printTable("Before decision 090 (the same bench at a05957c, after decision 088, app over HTTP/1.1, median of 5, 2026-12-01)", BEFORE_090);
    printTable("Before decision 091 (the same bench at 337e78d, after decision 090, median of 5, 2026-12-02 00:09 UTC, load 3.37)", BEFORE_091);
    for (const [screen, load] of slowest) {
      printTable(
        `${screen}, the median load's responses in the order they were asked for (ms since the navigation started; interactive at ${Math.round(load.interactive)} ms)`,
        load.waterfall.map((w) => ({ path: w.path, KB: w.kb, encoding: w.encoding, asked: w.start, done: w.end })),
      );
    }
  } finally {
    stopCaddy?.();
    await browser.close();
    await app.stop();
    await handle.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
