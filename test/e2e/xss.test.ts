import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { ADMIN, bearer } from "../helpers/app";
import { allowRefusal, allowPageError, loginThroughPage, startE2E, waitForHydration, type E2E } from "../helpers/browser";
import { buildXlsx } from "../helpers/xlsx";
import { XSS_CORPUS } from "../helpers/xss";

/**
 * Issue 9, Security: the XSS corpus through every stored text a page renders (template labels, link names and
 * URLs, contact fields from an import, display names, status, topic, base, script and export names, report texts,
 * the settings text), stored through the API, then every page that shows them opened in Chromium: no dialog opens,
 * no injected code runs (the payloads set window.__x), no element carries an injected handler, and the CSP never
 * had to block anything. Script content has its own test (test/e2e/scripts.test.ts).
 */

/** The corpus, with every alert(1) also made to set a flag (a handler that runs without a dialog still shows). */
const PAYLOADS = [
  ...new Set([
    ...XSS_CORPUS.map((p) => p.replace(/alert\(1\)/g, "__x=1").replace(/msgbox\(1\)/g, "__x=1")),
    ...XSS_CORPUS,
    `</script><script>__x=1</script>`,
    `</textarea><img src=x onerror=__x=1>`,
    `</title><img src=x onerror=__x=1>`,
    `'><img src=x onerror=__x=1>`,
    `" autofocus onfocus="__x=1`,
    `javascript:__x=1`,
    "${__x=1}{{constructor.constructor('__x=1')()}}",
    `строка\u2028\u2029<svg onload=__x=1>`,
  ]),
].filter((p, i, all) => p.length <= 100 && all.findIndex((q) => q.trim() === p.trim()) === i);

let e: E2E;
let sip: WebSocketServer;
let sipUrl: string;
const ids = {} as {
  manager: { id: number; login: string; password: string; accessKey: string };
  chooser: { login: string; password: string; accessKey: string };
  filterId: number;
  templateId: number;
  scriptId: number;
  baseId: number;
};

const PASSWORD = "Xss-password-1!";
const key = (i: number) => `XSSKEY${String(i).padStart(10, "0")}`;

async function must(res: { status: number; body: unknown; text?: string }, what: string) {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, unknown> & { id: number };
}

beforeAll(async () => {
  // A stand-in for the PBX's SIP-over-WebSocket server, so the CSP test can open the softphone's socket for real.
  sip = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((resolve) => sip.once("listening", () => resolve()));
  sipUrl = `ws://127.0.0.1:${(sip.address() as AddressInfo).port}/ws`;
  e = await startE2E({ env: { SIP_WS_URL: sipUrl } });
  const auth = bearer(await e.adminToken());
  const api = e.request;

  // Display names and telegram nicks: one manager per payload.
  const managers: Array<{ id: number; login: string }> = [];
  for (const [i, p] of PAYLOADS.entries()) {
    const res = await must(
      await api
        .post("/api/v1/auth/register")
        .set(auth)
        .send({ login: `xss${i}`, password: PASSWORD, displayName: p, accessKey: key(i), telegram: p }),
      `register ${i}`,
    );
    managers.push({ id: res.id, login: `xss${i}` });
  }
  ids.manager = { ...managers[0], password: PASSWORD, accessKey: key(0) };
  ids.chooser = { login: managers[1].login, password: PASSWORD, accessKey: key(1) };

  // Statuses: text, button text and description.
  const statusIds: number[] = [];
  for (const [i, p] of PAYLOADS.entries()) {
    const created = await must(
      await api
        .post("/api/v1/status")
        .set(auth)
        .send({ text: p, color: "#f59e0b", isHidden: false, description: p, order: 10 + i }),
      "status",
    );
    await must(
      await api.put(`/api/v1/status/${created.id}`).set(auth).send({ text: p, buttonText: p, color: "#1d4ed8", description: p }),
      "status put",
    );
    statusIds.push(created.id);
  }
  const seeded = (await api.get("/api/v1/status").set(auth)).body as Array<{ id: number; text: string; isReportStatus: boolean }>;
  const report = seeded.find((s) => s.isReportStatus)!;
  statusIds.push(...seeded.filter((s) => !statusIds.includes(s.id)).map((s) => s.id));

  // Links: the name, and the payload inside an (allowed) https address.
  for (const p of PAYLOADS) {
    await must(
      await api
        .post("/api/v1/links")
        .set(auth)
        .send({ name: p, link: `https://example.com/?q=${p}`, isActive: true }),
      "link",
    );
  }
  await must(
    await api.post("/api/v1/links").set(auth).send({ name: "кавычки", link: `https://example.com/"onmouseover="__x=1`, isActive: true }),
    "link",
  );
  // A link to anything but http(s) is refused outright.
  for (const bad of ["javascript:__x=1", "JaVaScRiPt:__x=1", "data:text/html,<script>__x=1</script>", "vbscript:msgbox(1)"]) {
    const res = await api.post("/api/v1/links").set(auth).send({ name: "плохая", link: bad, isActive: true });
    expect(res.status, bad).toBe(400);
  }

  // Templates: field labels (the lead card) and names.
  const template = await must(
    await api
      .post("/api/v1/templates")
      .set(auth)
      .send({
        name: PAYLOADS[0],
        isActive: true,
        templateFields: JSON.stringify(PAYLOADS.slice(0, 50).map((label, i) => ({ label, type: i % 2 ? "textarea" : "text" }))),
      }),
    "template",
  );
  ids.templateId = template.id;
  for (const p of PAYLOADS.slice(1)) {
    await must(
      await api
        .post("/api/v1/templates")
        .set(auth)
        .send({ name: p, isActive: true, templateFields: JSON.stringify([{ label: p, type: "text" }]) }),
      "template",
    );
  }

  // Scripts: names (the sidebar, the list, the viewer's title).
  const scriptIds: number[] = [];
  for (const p of PAYLOADS)
    scriptIds.push(
      (
        await must(
          await api
            .post("/api/v1/scripts")
            .set(auth)
            .send({ name: p, content: `<p>${"текст"}</p>` }),
          "script",
        )
      ).id,
    );
  ids.scriptId = scriptIds[0];

  // An import: contact fields (name, city, address, extra fields) and the base name.
  const header = ["ФИО", "Телефон", "Город", "Адрес", "Доп1", "Доп2", "Доп3", "Доп4"];
  const rows = PAYLOADS.map((p, i) => [`Клиент ${p}`, `+38050${String(1000000 + i)}`, p, p, p, p, p, p]);
  const file = await buildXlsx([header, ...rows]);
  const imported = await api
    .post("/api/v1/database/import")
    .set(auth)
    .attach("file", file, "xss.xlsx")
    .field("name", PAYLOADS[2])
    .field(
      "mappings",
      JSON.stringify(["name", "phone", "city", "address", "additionalInfo1", "additionalInfo2", "additionalInfo3", "additionalInfo4"]),
    )
    .field("hasHeader", "true");
  await must(imported, "import");
  // More base names (a one-row file each).
  for (const [i, p] of PAYLOADS.entries()) {
    if (i === 2) continue;
    const one = await buildXlsx([
      ["ФИО", "Телефон"],
      [`Другой ${i}`, `+38067${String(1000000 + i)}`],
    ]);
    await must(
      await api
        .post("/api/v1/database/import")
        .set(auth)
        .attach("file", one, "one.xlsx")
        .field("name", p)
        .field("mappings", JSON.stringify(["name", "phone"]))
        .field("hasHeader", "true"),
      `import ${i}`,
    );
  }
  const bases = (await api.get("/api/v1/database").set(auth)).body as Array<{ id: number; name: string }>;
  ids.baseId = bases.find((b) => b.name === PAYLOADS[2])!.id;

  // Topics: every payload a topic name; the manager works the first one.
  const filterIds: number[] = [];
  for (const p of PAYLOADS) {
    const filter = await must(
      await api
        .post("/api/v1/filters")
        .set(auth)
        .send({
          name: p,
          managers: managers.map((m) => m.id),
          databases: [ids.baseId],
          statuses: statusIds,
          scripts: scriptIds,
          template: ids.templateId,
        }),
      "filter",
    );
    filterIds.push(filter.id);
  }
  ids.filterId = filterIds[0];

  // The settings text.
  await must(
    await api
      .post("/api/v1/database/settings")
      .set(auth)
      .send({ removeDuplicatesInBase: false, removeDuplicatesAcrossBases: false, defaultInfo: PAYLOADS.join("\n") }),
    "settings",
  );

  // Exports: names.
  for (const p of PAYLOADS)
    await must(
      await api
        .post("/api/v1/database/exports")
        .set(auth)
        .send({ name: p, databaseIds: [ids.baseId], statusIds: [statusIds[0]] }),
      "export",
    );

  // A report with the payloads as its application text, some presses for the statistics, and a payout covering it.
  await must(await api.put("/api/v1/payments/rates").set(auth).send({ withPassport: 5, withoutPassport: 3 }), "rates");
  const managerToken = await e.tokenFor(ids.manager);
  const mAuth = bearer(managerToken);
  await must(await api.post(`/api/v1/filters/${ids.filterId}/${ids.manager.id}/${ids.manager.login}`).set(mAuth), "choose");
  let lead = (await api.get("/api/v1/database/filtered-lead").query({ filterId: ids.filterId, userId: ids.manager.id }).set(mAuth)).body as {
    id: number;
  };
  lead = (await must(
    await api
      .put("/api/v1/status/update-and-get-lead")
      .set(mAuth)
      .send({
        statusText: report.text,
        contactId: lead.id,
        userId: ids.manager.id,
        passport: PAYLOADS[3],
        filterId: ids.filterId,
        clientInfo: PAYLOADS.join("\n"),
      }),
    "report",
  )) as unknown as { id: number };
  for (const p of PAYLOADS.slice(0, 8)) {
    if (!lead?.id) break;
    lead = (await must(
      await api
        .put("/api/v1/status/update-and-get-lead")
        .set(mAuth)
        .send({ statusText: p, contactId: lead.id, userId: ids.manager.id, passport: "", filterId: ids.filterId, clientInfo: "" }),
      "press",
    )) as unknown as { id: number };
  }
  const balance = (await api.get(`/api/v1/users/balance/${ids.manager.id}`).set(auth)).body as { balance: number };
  await must(await api.post("/api/v1/payments/process").set(auth).send({ userId: ids.manager.id, amount: balance.balance }), "payout");
}, 600_000);

afterAll(async () => {
  await e?.close();
  await new Promise<void>((resolve) => (sip ? sip.close(() => resolve()) : resolve()));
});

type Watched = Page & { dialogs: string[] };

/** A logged-in page that records every dialog and every CSP violation (an injected tag the policy had to stop). */
async function watchedPage(credentials: { login: string; password: string; accessKey: string }): Promise<Watched> {
  const page = (await e.newPage({ javaScript: true })) as Watched;
  page.dialogs = [];
  page.on("dialog", (dialog) => {
    page.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener("securitypolicyviolation", (event) => w.__csp.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  await loginThroughPage(page, credentials);
  return page;
}

/** What is alive in the page: the payloads' flag, CSP violations, handler attributes, injected elements, the text. */
async function inspect(page: Page) {
  // Let broken images fail, focus handlers fire, and effects run.
  await page.waitForLoadState("load");
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 300))));
  return page.evaluate(() => {
    const w = window as unknown as { __x?: unknown; __csp: string[] };
    const handlers: string[] = [];
    for (const el of Array.from(document.querySelectorAll("*"))) {
      for (const attr of Array.from(el.attributes)) {
        if (/^on/i.test(attr.name)) handlers.push(`${el.tagName} ${attr.name}`);
        if (/^(href|src|action|formaction|xlink:href|data)$/i.test(attr.name) && /^\s*(javascript|vbscript|data:text)/i.test(attr.value)) {
          handlers.push(`${el.tagName} ${attr.name}=${attr.value}`);
        }
      }
    }
    const injected = Array.from(
      document.querySelectorAll("iframe, object, embed, base, meta[http-equiv], img[src='x'], body script:not([nonce]):not([src])"),
    ).map((el) => el.outerHTML.slice(0, 80));
    // What the user reads: the text, plus what form fields hold (a textarea's value is not innerText).
    const values = Array.from(document.querySelectorAll("input, textarea")).map((el) => (el as HTMLInputElement).value);
    return { flag: w.__x, csp: w.__csp, handlers, injected, text: [document.body.innerText, ...values].join("\n") };
  });
}

/** Opens a page, lets it hydrate and settle, and checks that nothing injected is alive in it. */
async function expectInert(page: Watched, url: string) {
  const res = await page.goto(url);
  expect(res?.status(), url).toBeLessThan(400);
  await waitForHydration(page);
  const state = await inspect(page);
  expect(state.flag, `${url}: an injected script ran`).toBeUndefined();
  expect(page.dialogs, `${url}: a dialog opened`).toEqual([]);
  expect(state.handlers, `${url}: injected handlers or script URLs`).toEqual([]);
  expect(state.injected, `${url}: injected elements`).toEqual([]);
  expect(state.csp, `${url}: the CSP had to block something`).toEqual([]);
  return state.text;
}

/** At least `least` of the payloads are on the page as plain text (so the test really looked at them). */
function expectShown(url: string, text: string, least = 1) {
  const shown = PAYLOADS.filter((p) => text.includes(p.trim()));
  expect(shown.length, `${url}: payloads shown as text`).toBeGreaterThanOrEqual(least);
}

describe("stored XSS payloads render inert in Chromium", () => {
  it("the checks see an injection (a payload inserted as HTML is caught even though the CSP stops it)", async () => {
    // The test injects a payload itself: the CSP blocks its handler and its javascript: URL, and its image is a 404.
    allowPageError(/violates the following Content Security Policy directive/);
    allowRefusal(404);
    const page = await watchedPage(ADMIN);
    await page.goto("/leadTemplate");
    await waitForHydration(page);
    await page.evaluate(() => document.body.insertAdjacentHTML("beforeend", `<img src=x onerror="__x=1"><iframe src="javascript:__x=1"></iframe>`));
    const state = await inspect(page);
    expect(state.handlers.length).toBeGreaterThan(0);
    expect(state.injected.length).toBeGreaterThan(0);
    await expect.poll(async () => (await inspect(page)).csp.length, { timeout: 10_000 }).toBeGreaterThan(0);
  });

  it("admin screens: dashboard, bases, topics, import, export, search, settings, statuses, managers, scripts, templates, links, payments", async () => {
    const page = await watchedPage(ADMIN);
    const pages: Array<[string, number]> = [
      ["/", 1],
      ["/loadedbases?size=50", 10],
      [`/loadedbases/filters/${ids.filterId}`, 1],
      ["/loadedbases/filters/new", 1],
      ["/importbase", 0],
      ["/exportbase", 10],
      [`/searchlead?term=${encodeURIComponent("Клиент")}&database=${ids.baseId}&size=20`, 5],
      ["/basesettings", 10],
      ["/edit-statuses", 10],
      ["/managers?size=50", 10],
      ["/users", 0],
      ["/scripts", 10],
      ["/leadTemplate", 10],
      [`/leadTemplate?template=${ids.templateId}`, 10],
      ["/payments?size=50", 0],
      [`/payments/history/${ids.manager.id}`, 0],
      [`/scripts/view/${ids.scriptId}`, 1],
      ["/profile", 0],
    ];
    for (const [url, least] of pages) {
      const text = await expectInert(page, url);
      if (least) expectShown(url, text, least);
    }
    // The same screens rendered by React in the browser (a client-side navigation renders from the loader's JSON,
    // not from the server's HTML).
    await page.goto("/");
    await waitForHydration(page);
    for (const [url, least] of pages) {
      if (url.startsWith("/scripts/view/")) continue;
      await page.evaluate((to) => (window as unknown as { __remixRouter: { navigate(to: string): Promise<void> } }).__remixRouter.navigate(to), url);
      await page.waitForFunction((to) => {
        const router = (window as unknown as { __remixRouter: { state: { navigation: { state: string }; location: { pathname: string } } } })
          .__remixRouter;
        return router.state.navigation.state === "idle" && router.state.location.pathname === new URL(to, location.href).pathname;
      }, url);
      const state = await inspect(page);
      expect(state.flag, `${url} (client-side)`).toBeUndefined();
      expect(page.dialogs, `${url} (client-side)`).toEqual([]);
      expect(state.handlers, `${url} (client-side)`).toEqual([]);
      expect(state.injected, `${url} (client-side)`).toEqual([]);
      expect(state.csp, `${url} (client-side)`).toEqual([]);
      if (least) expectShown(`${url} (client-side)`, state.text, least);
    }

    // Payloads in the address (reflected): search fields echo the query.
    for (const p of PAYLOADS.slice(0, 6)) {
      const q = encodeURIComponent(p);
      for (const url of [
        `/searchlead?term=${q}&database=${ids.baseId}`,
        `/loadedbases?q=${q}`,
        `/payments?q=${q}`,
        `/managers?size=${q}&page=${q}`,
      ]) {
        await expectInert(page, url);
      }
    }

    // The payout's details: the report text with every payload.
    await page.goto(`/payments/history/${ids.manager.id}`);
    await waitForHydration(page);
    const href = await page.locator("a[href*='open=']").first().getAttribute("href");
    expect(href, "a payout to open").toBeTruthy();
    const detailsText = await expectInert(
      page,
      new URL(href!, `${e.baseUrl}/payments/history/${ids.manager.id}`).pathname +
        new URL(href!, e.baseUrl + `/payments/history/${ids.manager.id}`).search,
    );
    expectShown("payout details", detailsText, 10);
  }, 480_000);

  it("manager screens: lead panel (contact fields, template labels, status buttons, links), profile, scripts, topic choice", async () => {
    const page = await watchedPage(ids.manager);
    const panel = await expectInert(page, "/leadpanel");
    // Contact fields of the lead, template labels, status buttons and link names are all there as text.
    expectShown("/leadpanel", panel, 10);
    expect(await page.locator("a[href^='https://example.com/']").count()).toBeGreaterThan(5);
    // Working the card: typing into the payload-labelled fields and opening the report dialog runs nothing.
    const firstField = page.locator("main input[type=text]").first();
    if (await firstField.count()) await firstField.fill(PAYLOADS[0]);
    await expectInert(page, "/profile");
    const home = await expectInert(page, `/scripts/view/${ids.scriptId}`);
    // The watermark is the manager's display name (a payload), as text.
    expect(await page.locator("[data-testid=watermark] text").first().textContent()).toBe(PAYLOADS[0]);
    expectShown("script view", home, 1);

    // A manager with no topic yet: the topic list is all payload names.
    const chooser = await watchedPage(ids.chooser);
    const topics = await expectInert(chooser, "/getFilters");
    expectShown("/getFilters", topics, 10);
  }, 240_000);
});

describe("the CSP in Chromium", () => {
  it("lets the realtime socket and the softphone's SIP WebSocket connect, and blocks any other socket", async () => {
    // The test opens a socket the CSP must block: the browser logs the block.
    allowPageError(/Connecting to 'ws:\/\/localhost:\d+\/ws' violates the following Content Security Policy directive/);
    const page = await watchedPage(ADMIN);
    await page.goto("/leadpanel");
    await waitForHydration(page);
    const opened = await page.evaluate(
      async ({ sipUrl }) => {
        const tryOpen = (url: string) =>
          new Promise<string>((resolve) => {
            let socket: WebSocket;
            try {
              socket = new WebSocket(url);
            } catch (error) {
              resolve(`threw ${(error as Error).name}`);
              return;
            }
            socket.onopen = () => {
              socket.close();
              resolve("open");
            };
            socket.onerror = () => resolve("error");
          });
        const realtime = await tryOpen(`${location.origin.replace(/^http/, "ws")}/realtime`);
        const sip = await tryOpen(sipUrl);
        const other = await tryOpen(sipUrl.replace("127.0.0.1", "localhost"));
        return { realtime, sip, other };
      },
      { sipUrl },
    );
    expect(opened.realtime).toBe("open");
    expect(opened.sip).toBe("open");
    expect(opened.other).not.toBe("open");
    // The refusal is reported as a connect-src violation (the event may come after the socket's error).
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp.some((v) => v.startsWith("connect-src"))), { timeout: 15_000 })
      .toBe(true);
  }, 120_000);
});
