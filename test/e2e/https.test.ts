import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leadEvents, users } from "../../db/schema";
import { createTestApp, createUser, type TestApp } from "../helpers/app";
import { launchBrowser, waitForHydration } from "../helpers/browser";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";
import { freePorts } from "../helpers/ports";
import { startDaemon, waitForTcp, type Daemon } from "../sip/daemon";

const ROOT = path.resolve(__dirname, "..", "..");

/**
 * docs/deploy.md as a test: the app with the env file's proxy settings behind Caddy running the shipped
 * deploy/Caddyfile, with Caddy's own CA instead of a public one (`local_certs`) and test ports. Chromium reaches it
 * only over HTTPS.
 */
describe("the app behind Caddy over HTTPS (docs/deploy.md)", () => {
  let t: TestApp;
  let caddy: Daemon;
  let browser: Browser;
  let origin: string;
  let home: string;

  beforeAll(async () => {
    t = await createTestApp({ web: true, env: { TRUST_PROXY: "1", COOKIE_SECURE: "true" } });
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    const appPort = (t.app.server.address() as AddressInfo).port;
    const [httpPort, httpsPort] = await freePorts(2);
    home = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-caddy-"));
    const caddyfile = path.join(home, "Caddyfile");
    fs.writeFileSync(
      caddyfile,
      [
        "{",
        "\tadmin off",
        "\tlocal_certs",
        "\tskip_install_trust",
        `\thttp_port ${httpPort}`,
        `\thttps_port ${httpsPort}`,
        `\tstorage file_system ${path.join(home, "data")}`,
        "}",
        `import ${path.join(ROOT, "deploy", "Caddyfile")}`,
        "",
      ].join("\n"),
    );
    caddy = startDaemon("caddy", "caddy", ["run", "--config", caddyfile, "--adapter", "caddyfile"], {
      HOME: home,
      XDG_DATA_HOME: path.join(home, "data"),
      XDG_CONFIG_HOME: path.join(home, "config"),
      LEADDESK_DOMAIN: "localhost",
      LEADDESK_PORT: String(appPort),
    });
    await waitForTcp(httpsPort, caddy, 30_000);
    origin = `https://localhost:${httpsPort}`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await caddy?.stop();
    await t?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it("logs a manager in, presses a status and keeps the realtime socket, with every cookie Secure and HSTS sent", async () => {
    const manager = await createUser(t.db, { displayName: "Ольга" });
    const { base, contacts } = await createBase(t.db, { count: 2 });
    const s = await statusesByText(t.db);
    const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [base.id], statusIds: [s["Перезвонить"].id] });
    await t.db.update(users).set({ gettingFilter: filter.id });

    // Caddy's local CA is not in Chromium's store: the certificate is accepted for this context only.
    const context = await browser.newContext({ baseURL: origin, ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const sockets: string[] = [];
    page.on("websocket", (socket) => sockets.push(socket.url()));
    const setCookies: string[] = [];
    page.on("response", async (response) => {
      const header = await response.headerValue("set-cookie").catch(() => null);
      if (header) setCookies.push(...header.split("\n"));
    });

    const first = await page.goto("/auth");
    expect(first!.url()).toBe(`${origin}/auth`);
    expect(await first!.headerValue("strict-transport-security")).toMatch(/max-age=\d+/);
    expect(await first!.headerValue("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    await page.fill("#login", manager.login);
    await page.fill("#password", manager.password);
    await page.fill("#accessKey", manager.accessKey);
    await Promise.all([page.waitForURL((url) => url.pathname !== "/auth"), page.click("button[type=submit]")]);
    if (new URL(page.url()).pathname !== "/leadpanel") await page.goto("/leadpanel");
    await waitForHydration(page);
    // Session and flash ("Авторизирован") alike: no cookie crosses the wire without Secure.
    expect(setCookies.map((cookie) => cookie.split("=")[0])).toEqual(expect.arrayContaining(["session", "flash"]));
    for (const cookie of setCookies) expect(cookie).toMatch(/;\s*Secure(;|$)/i);
    expect(await page.locator("[data-testid=lead-name]").textContent()).toBe(contacts[0].name);

    // The theme cookie too, set by a form post through the proxy.
    await context.request.post("/theme", { form: { theme: "dark", redirectTo: "/leadpanel" }, headers: { Origin: origin } });
    const cookies = await context.cookies();
    expect(cookies.map((cookie) => cookie.name).sort()).toEqual(expect.arrayContaining(["session", "theme"]));
    for (const cookie of cookies) expect({ name: cookie.name, secure: cookie.secure }).toEqual({ name: cookie.name, secure: true });

    // The realtime hub through Caddy's WebSocket proxying.
    await expect.poll(() => sockets.some((url) => url === `wss://localhost:${new URL(origin).port}/realtime`), { timeout: 20_000 }).toBe(true);
    await expect.poll(() => t.app.deps.hub.connectedUserIds().includes(manager.user.id), { timeout: 20_000 }).toBe(true);

    await page.getByRole("button", { name: "Отказ" }).click();
    await expect.poll(async () => page.locator("[data-testid=lead-name]").textContent(), { timeout: 20_000 }).toBe(contacts[1].name);
    const events = await t.db.select().from(leadEvents);
    expect(events.map((event) => event.contactId)).toEqual([contacts[0].id]);
    await context.close();
  });

  it("does not show /metrics to the world through the public site", async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const res = await context.request.get(`${origin}/metrics`);
    expect(res.status()).toBe(404);
    await context.close();
  });
});
