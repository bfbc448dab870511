import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { isAdminScreen } from "../../common/admin-screens";
import { filterScripts, users } from "../../db/schema";
import { ADMIN, bearer, createUser, formBody, getPage, pageSessionCookie, reloadUser, useTestApp } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";

/**
 * The authorization matrix (issue 9, Security): every API route of the OpenAPI description and every page
 * route of app/routes, called anonymously, as a manager and as an admin. A route the tables below do not
 * classify fails the test: a new route must say who may call it.
 */

type Access =
  /** No credential needed (OpenAPI `security: []`). */
  | "public"
  /** Admins only: a manager gets 403. */
  | "admin"
  /** Any logged-in user, acting on his own data; another manager's id → 403 (self-scoped). */
  | "self"
  /** Any logged-in user, nothing user-specific in the address or body. */
  | "user";

/** Every API route, by "METHOD /path" as the OpenAPI description spells it. */
const API_ROUTES: Record<string, Access> = {
  "POST /api/v1/auth/login": "public",
  "GET /api/v1/health": "public",
  "GET /api/v1/health/ready": "public",
  // Kamailio's: no session, the shared secret instead (test/api/sip-digest.test.ts).
  "GET /api/v1/telephony/sip-digest": "public",
  // (test/api/proxy-calls.test.ts)
  "POST /api/v1/telephony/calls": "public",
  "POST /api/v1/telephony/call-events": "public",
  // Whom a call in rings (test/api/inbound-routing.test.ts).
  "POST /api/v1/telephony/inbound": "public",
  "POST /api/v1/auth/register": "admin",
  "POST /api/v1/auth/force-logout/{id}": "admin",
  "GET /api/v1/users/balance/{id}": "self",
  "GET /api/v1/users/balance/{userId}/{amount}/add": "admin",
  "GET /api/v1/users/balance/{userId}/{amount}/rem": "admin",
  "GET /api/v1/users/balance/{userId}/{amount}/def": "admin",
  "GET /api/v1/database/settings": "admin",
  "POST /api/v1/database/settings": "admin",
  "GET /api/v1/database": "admin",
  "DELETE /api/v1/database/{id}": "admin",
  "POST /api/v1/database/preview": "admin",
  "POST /api/v1/database/import": "admin",
  "GET /api/v1/database/search": "admin",
  "GET /api/v1/status/countsAllTime/{databaseName}": "admin",
  "GET /api/v1/database/exports": "admin",
  "POST /api/v1/database/exports": "admin",
  "DELETE /api/v1/database/exports": "admin",
  "GET /api/v1/database/exports/{id}": "admin",
  "DELETE /api/v1/database/exports/{id}": "admin",
  "POST /api/v1/database/exports/{id}/restart": "admin",
  "GET /api/v1/filters": "user",
  "POST /api/v1/filters": "admin",
  "PUT /api/v1/filters/{id}": "admin",
  "DELETE /api/v1/filters/{id}": "admin",
  "PUT /api/v1/filters/{id}/activate": "admin",
  "POST /api/v1/filters/{filterId}/{userId}/{login}": "self",
  "GET /api/v1/database/filtered-lead": "self",
  "PUT /api/v1/status/update-and-get-lead": "self",
  "POST /api/v1/status/proxy-application": "self",
  "GET /api/v1/links": "admin",
  "POST /api/v1/links": "admin",
  "GET /api/v1/links/allActive": "user",
  "GET /api/v1/calls": "user",
  "GET /api/v1/calls/today": "admin",
  // The access log (issue 39): every filter and role, test/api/access-log.test.ts.
  "GET /api/v1/access-log": "admin",
  "GET /api/v1/access-log.csv": "admin",
  "POST /api/v1/calls": "user",
  // Per call: an admin any, a manager his own where the topic allows it (every role's answer: test/api/recordings.test.ts).
  "GET /api/v1/calls/{id}/recording": "user",
  "POST /api/v1/calls/{id}/answer": "user",
  "POST /api/v1/calls/{id}/alive": "user",
  "POST /api/v1/calls/{id}/end": "user",
  "GET /api/v1/contacts/{id}/history": "user",
  "PUT /api/v1/links/{id}": "admin",
  "DELETE /api/v1/links/{id}": "admin",
  "PUT /api/v1/links/{id}/activate": "admin",
  "GET /api/v1/payments/stats": "admin",
  "GET /api/v1/payments/history/{workerId}": "admin",
  "POST /api/v1/payments/history/{workerId}/history": "admin",
  "POST /api/v1/payments/process": "admin",
  "DELETE /api/v1/payments/history/{id}": "admin",
  "GET /api/v1/payments/rates": "admin",
  "PUT /api/v1/payments/rates": "admin",
  "GET /api/v1/scripts": "user",
  "POST /api/v1/scripts": "admin",
  "PUT /api/v1/scripts/{id}": "admin",
  "DELETE /api/v1/scripts/{id}": "admin",
  "GET /api/v1/statistics": "admin",
  "GET /api/v1/statistics/personal/{id}": "self",
  "GET /api/v1/status": "admin",
  "POST /api/v1/status": "admin",
  "GET /api/v1/status/visible": "user",
  "PUT /api/v1/status/{id}": "admin",
  "DELETE /api/v1/status/{id}": "admin",
  "PUT /api/v1/status/{id}/visibility": "admin",
  "PUT /api/v1/status/{id}/technical": "admin",
  "PUT /api/v1/status/{id}/do-not-call": "admin",
  "GET /api/v1/do-not-call": "admin",
  "POST /api/v1/do-not-call": "admin",
  "POST /api/v1/do-not-call/paste": "admin",
  "POST /api/v1/do-not-call/import": "admin",
  "DELETE /api/v1/do-not-call/{id}": "admin",
  "PUT /api/v1/status/{id}/callback": "admin",
  "GET /api/v1/callbacks/mine": "user",
  "GET /api/v1/callbacks": "admin",
  "PUT /api/v1/callbacks/{id}": "admin",
  "POST /api/v1/callbacks/{id}/take": "user",
  // Its own manager's or, for an admin, anyone's (test/api/callbacks.test.ts); the matrix's id names none: 404.
  "PUT /api/v1/callbacks/{id}/note": "user",
  "GET /api/v1/breaks/current": "user",
  "POST /api/v1/breaks": "user",
  "DELETE /api/v1/breaks/current": "user",
  "GET /api/v1/breaks/today": "admin",
  "GET /api/v1/templates": "user",
  "POST /api/v1/templates": "admin",
  "PUT /api/v1/templates/{id}": "admin",
  "DELETE /api/v1/templates/{id}": "admin",
  "PUT /api/v1/templates/{id}/activate": "admin",
  "GET /api/v1/users": "admin",
  "GET /api/v1/users/online": "admin",
  "GET /api/v1/users/{id}": "self",
  "PATCH /api/v1/users/{id}": "admin",
  "DELETE /api/v1/users/{id}": "admin",
  "POST /api/v1/users/logout/{id}": "self",
  "GET /api/v1/scorecards/{filterId}": "admin",
  "PUT /api/v1/scorecards/{filterId}": "admin",
  // A manager's own scores only, another's 403 (every role's answer: test/api/scoring.test.ts).
  "GET /api/v1/scores": "user",
  "GET /api/v1/scores/calls/{callId}": "user",
  "POST /api/v1/scores/{id}/dispute": "user",
  "POST /api/v1/scores/calls/{callId}": "admin",
  "POST /api/v1/scores/calls/{callId}/comments": "admin",
  "DELETE /api/v1/scores/comments/{id}": "admin",
  "POST /api/v1/scores/{id}/decision": "admin",
  "GET /api/v1/scores/numbers": "admin",
  "GET /api/v1/scores/next": "admin",
  // Webhooks and API keys (issue 44): test/api/webhooks.test.ts, test/api/api-keys.test.ts.
  "GET /api/v1/webhooks": "admin",
  "POST /api/v1/webhooks": "admin",
  "GET /api/v1/webhooks/{id}": "admin",
  "PUT /api/v1/webhooks/{id}": "admin",
  "DELETE /api/v1/webhooks/{id}": "admin",
  "POST /api/v1/webhooks/{id}/secret": "admin",
  "GET /api/v1/webhooks/{id}/deliveries": "admin",
  "POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/resend": "admin",
  "GET /api/v1/api-keys": "admin",
  "POST /api/v1/api-keys": "admin",
  "DELETE /api/v1/api-keys/{id}": "admin",
  // A recording's signed link of a recording.ready event: no credential, the signature instead (test/api/webhooks.test.ts).
  "GET /api/v1/recordings/{id}/shared": "public",
};

/**
 * What an integration's API key needs for a route besides its default (GET: read; any other method: admin): the
 * routes that take and press leads need write; the GETs that change a balance need admin.
 */
const KEY_SCOPES: Record<string, "read" | "write" | "admin"> = {
  "GET /api/v1/database/filtered-lead": "write",
  "PUT /api/v1/status/update-and-get-lead": "write",
  "POST /api/v1/status/proxy-application": "write",
  "PUT /api/v1/callbacks/{id}": "write",
  "POST /api/v1/callbacks/{id}/take": "write",
  "PUT /api/v1/callbacks/{id}/note": "write",
  "POST /api/v1/filters/{filterId}/{userId}/{login}": "write",
  "GET /api/v1/users/balance/{userId}/{amount}/add": "admin",
  "GET /api/v1/users/balance/{userId}/{amount}/rem": "admin",
  "GET /api/v1/users/balance/{userId}/{amount}/def": "admin",
};

type PageAccess = Access | "layout" | "resource";

/** Every module of app/routes: its access and an address to open it at (`:id` filled in by the test). */
const PAGE_ROUTES: Record<string, { access: PageAccess; url?: string; postOnly?: boolean }> = {
  "$.tsx": { access: "public", url: "/no/such/page" },
  "auth._index.tsx": { access: "public", url: "/auth" },
  "auth.recovery.tsx": { access: "public", url: "/auth/recovery" },
  "theme.tsx": { access: "public", url: "/theme" },
  "logout.tsx": { access: "public", url: "/logout" },
  // The header's break toggle (POST); a GET goes home.
  "break.tsx": { access: "user", url: "/break" },
  // The balance poll: a JSON resource, so an anonymous call gets 401 JSON instead of a redirect.
  "balance.tsx": { access: "resource", url: "/balance" },
  // The softphone's call reports (POST) and the user's own calls (GET), JSON with 401 for an anonymous call.
  "calls.tsx": { access: "resource", url: "/calls" },
  // Live listening and whisper (POST, JSON): who may do which, test/api/listening.test.ts.
  "listen.tsx": { access: "resource", url: "/listen" },
  // What a page's audio played, for the access log (POST, JSON; whose report it may be: test/api/access-log.test.ts).
  "heard.tsx": { access: "resource", url: "/heard" },
  // The lead panel's «Принимать входящие» (POST; a GET goes to the panel), and the ringing call's client card (JSON).
  "inbound.tsx": { access: "user", url: "/inbound" },
  "incoming.tsx": { access: "resource", url: "/incoming?sipCallId=x" },
  // A client's history for the lead panel (JSON): whose, GET /api/v1/contacts/{id}/history's rule (clientHistory).
  "history.$contactId.tsx": { access: "resource", url: "/history/999999999" },
  // A call's recording: who may hear which call, test/api/recordings.test.ts (a call never recorded here: 404).
  "recordings.$id.tsx": { access: "user", url: "/recordings/999999999" },
  "webPhone.tsx": { access: "user", url: "/webPhone" },
  "_app.tsx": { access: "layout" },
  "_app._index.tsx": { access: "user", url: "/" },
  "_app.leadpanel.tsx": { access: "user", url: "/leadpanel" },
  "_app.callbacks.tsx": { access: "user", url: "/callbacks" },
  "_app.profile.tsx": { access: "user", url: "/profile" },
  "_app.getFilters.tsx": { access: "user", url: "/getFilters" },
  "_app.scripts_.view.$id.tsx": { access: "self", url: "/scripts/view/:script" },
  "_app.loadedbases.tsx": { access: "layout" },
  "_app.loadedbases._index.tsx": { access: "admin", url: "/loadedbases" },
  "_app.loadedbases.filters.new.tsx": { access: "admin", url: "/loadedbases/filters/new" },
  "_app.loadedbases.filters.$id.tsx": { access: "admin", url: "/loadedbases/filters/:filter" },
  "_app.importbase.tsx": { access: "admin", url: "/importbase" },
  // The import page's XHR posts (no loader: a GET is Remix's 400).
  "_app.importbase.upload.tsx": { access: "admin", url: "/importbase/upload", postOnly: true },
  // The count of rows an import under way has written (JSON, asked by the import page while it saves).
  "_app.importbase.progress.tsx": { access: "admin", url: "/importbase/progress?uploadId=x" },
  "_app.exportbase.tsx": { access: "admin", url: "/exportbase" },
  "_app.exportbase.$id.download.tsx": { access: "admin", url: "/exportbase/:export/download" },
  "_app.searchlead.tsx": { access: "admin", url: "/searchlead" },
  "_app.donotcall.tsx": { access: "admin", url: "/donotcall" },
  "_app.basesettings.tsx": { access: "admin", url: "/basesettings" },
  "_app.edit-statuses.tsx": { access: "admin", url: "/edit-statuses" },
  "_app.managers.tsx": { access: "admin", url: "/managers" },
  "_app.users.tsx": { access: "admin", url: "/users" },
  "_app.access-log.tsx": { access: "admin", url: "/access-log" },
  "_app.access-log_.csv.tsx": { access: "admin", url: "/access-log/csv" },
  "_app.scripts.tsx": { access: "admin", url: "/scripts" },
  "_app.leadTemplate.tsx": { access: "admin", url: "/leadTemplate" },
  "_app.payments.tsx": { access: "admin", url: "/payments" },
  "_app.payments.pay.$workerId.tsx": { access: "admin", url: "/payments/pay/:worker" },
  "_app.payments.history.$workerId.tsx": { access: "admin", url: "/payments/history/:worker" },
  "_app.payments.balance.$workerId.tsx": { access: "admin", url: "/payments/balance/:worker" },
  "_app.quality._index.tsx": { access: "admin", url: "/quality" },
  "_app.integrations.tsx": { access: "admin", url: "/integrations" },
  "_app.quality.scorecard.$filterId.tsx": { access: "admin", url: "/quality/scorecard/:filter" },
  // A call never made here: the admin gets 404, a manager 403 (the scoring screen: test/api/scoring-pages.test.ts).
  "_app.quality.call.$callId.tsx": { access: "admin", url: "/quality/call/999999999" },
};

type Creds = { login: string; password: string; accessKey: string };
interface Fixture {
  adminToken: string;
  /** Manager A (the caller), B (another manager), C (a spare one the admin may delete). */
  a: Creds & { id: number };
  b: Creds & { id: number };
  c: Creds & { id: number };
  aToken: string;
  filterId: number;
  baseId: number;
  baseName: string;
  statusId: number;
  contactId: number;
  linkId: number;
  scriptId: number;
  sharedScriptId: number;
  templateId: number;
  exportId: number;
}

let f: Fixture;
let openapiRoutes: Array<{ key: string; method: string; path: string; isPublic: boolean }>;

async function must<T>(res: { status: number; body: T }, what: string): Promise<T> {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const t = useTestApp({ web: true });
beforeAll(async () => {
  const adminToken = await t.adminToken();
  const a = await createUser(t.db, { login: "matrix-a", displayName: "Анна" });
  const b = await createUser(t.db, { login: "matrix-b", displayName: "Борис" });
  const c = await createUser(t.db, { login: "matrix-c", displayName: "Вера" });
  const { base, contacts } = await createBase(t.db, { name: "Матрица", count: 5 });
  const statuses = await statusesByText(t.db);
  const statusIds = Object.values(statuses).map((s) => s.id);
  const filter = await createFilterRow(t.db, { name: "Тематика матрицы", managerIds: [a.user.id, b.user.id], databaseIds: [base.id], statusIds });
  await t.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, a.user.id));
  await t.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, b.user.id));
  const auth = bearer(adminToken);
  const link = await must(
    await t.request.post("/api/v1/links").set(auth).send({ name: "Сайт", link: "https://example.com", isActive: true }),
    "link",
  );
  const script = await must(await t.request.post("/api/v1/scripts").set(auth).send({ name: "Закрытый", content: "<p>секрет</p>" }), "script");
  const shared = await must(await t.request.post("/api/v1/scripts").set(auth).send({ name: "Общий", content: "<p>для всех</p>" }), "script");
  await t.db.insert(filterScripts).values({ filterId: filter.id, scriptId: (shared as { id: number }).id });
  const template = await must(
    await t.request
      .post("/api/v1/templates")
      .set(auth)
      .send({ name: "Шаблон", isActive: true, templateFields: JSON.stringify([{ label: "Имя", type: "text" }]) }),
    "template",
  );
  const exported = await must(
    await t.request
      .post("/api/v1/database/exports")
      .set(auth)
      .send({ name: "Выгрузка", databaseIds: [base.id], statusIds: [statusIds[0]] }),
    "export",
  );
  f = {
    adminToken,
    a: { ...a, id: a.user.id },
    b: { ...b, id: b.user.id },
    c: { ...c, id: c.user.id },
    aToken: await t.tokenFor(a),
    filterId: filter.id,
    baseId: base.id,
    baseName: base.name,
    statusId: statusIds[0],
    contactId: contacts[0].id,
    linkId: (link as { id: number }).id,
    scriptId: (script as { id: number }).id,
    sharedScriptId: (shared as { id: number }).id,
    templateId: (template as { id: number }).id,
    exportId: (exported as { id: number }).id,
  };

  const spec = await t.request.get("/api/v1/openapi.json");
  expect(spec.status).toBe(200);
  openapiRoutes = [];
  for (const [p, operations] of Object.entries<Record<string, { security?: unknown[] }>>(spec.body.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const m = method.toUpperCase();
      openapiRoutes.push({ key: `${m} ${p}`, method: m, path: p, isPublic: Array.isArray(operation.security) && operation.security.length === 0 });
    }
  }
}, 180_000);

/** The user a self-scoped or user-targeting call is about. */
type Target = "own" | "other" | "spare";

function targetUser(target: Target) {
  return target === "own" ? f.a : target === "other" ? f.b : f.c;
}

/** Fills an OpenAPI path with fixture ids; user ids point at `target`. */
function fillPath(routePath: string, target: Target): string {
  const user = targetUser(target);
  const resource = routePath.replace(/^\/api\/v1\//, "").split("/")[0];
  const byResource: Record<string, number> = {
    database: routePath.startsWith("/api/v1/database/exports") ? f.exportId : f.baseId,
    filters: f.filterId,
    links: f.linkId,
    scripts: f.scriptId,
    status: f.statusId,
    templates: f.templateId,
    // A payout that does not exist: a manager is refused before the lookup, an admin gets 404.
    payments: 999_999,
    users: user.id,
    auth: user.id,
    statistics: user.id,
  };
  return routePath
    .replace("{userId}", String(user.id))
    .replace("{workerId}", String(user.id))
    .replace("{login}", user.login)
    .replace("{filterId}", String(f.filterId))
    .replace("{amount}", "5")
    .replace("{databaseName}", encodeURIComponent(f.baseName))
    .replace("{id}", String(byResource[resource] ?? 999_999));
}

/** A plausible body and query, so a refusal is about who calls and not about the data. */
function payload(key: string, target: Target): { body?: unknown; query?: Record<string, string | number> } {
  const user = targetUser(target);
  const samples: Record<string, { body?: unknown; query?: Record<string, string | number> }> = {
    "POST /api/v1/auth/login": { body: ADMIN },
    "POST /api/v1/auth/register": {
      body: { login: "matrix-new", password: "Matrix-pass-1!", displayName: "Новый", accessKey: "MATRIXKEY0000001" },
    },
    "POST /api/v1/database/settings": { body: { removeDuplicatesInBase: false, removeDuplicatesAcrossBases: false, defaultInfo: "" } },
    "GET /api/v1/database/search": { query: { term: "Клиент", database: f.baseId } },
    "POST /api/v1/database/exports": { body: { name: "Ещё", databaseIds: [f.baseId], statusIds: [f.statusId] } },
    "DELETE /api/v1/database/exports": { query: { ids: String(f.exportId) } },
    "POST /api/v1/filters": {
      body: { name: "Новая", managers: [f.a.id], databases: [f.baseId], statuses: [f.statusId] },
    },
    "PUT /api/v1/filters/{id}": {
      body: { name: "Тематика матрицы", managers: [f.a.id, f.b.id], databases: [f.baseId], statuses: [f.statusId] },
    },
    "GET /api/v1/database/filtered-lead": { query: { filterId: f.filterId, userId: user.id } },
    "PUT /api/v1/status/update-and-get-lead": {
      body: { statusText: "Занято", contactId: f.contactId, userId: user.id, passport: "", filterId: f.filterId, clientInfo: "" },
    },
    "POST /api/v1/status/proxy-application": {
      body: { date: new Date().toISOString(), user: { id: user.id, login: user.login }, applicationText: "Имя: Тест", phone: "+380501234567" },
    },
    "POST /api/v1/links": { body: { name: "Ещё", link: "https://example.org", isActive: false } },
    "PUT /api/v1/links/{id}": { body: { name: "Сайт", link: "https://example.com", isActive: true } },
    "POST /api/v1/payments/history/{workerId}/history": { body: { processTime: Date.now() } },
    "POST /api/v1/payments/process": { body: { userId: user.id, amount: 1 } },
    "PUT /api/v1/payments/rates": { body: { withPassport: 5, withoutPassport: 3 } },
    "POST /api/v1/scripts": { body: { name: "Ещё", content: "<p>x</p>" } },
    "PUT /api/v1/scripts/{id}": { body: { name: "Закрытый", content: "<p>секрет</p>" } },
    "POST /api/v1/status": { body: { text: "Ещё статус", color: "#f59e0b", isHidden: false, description: "", order: 9 } },
    "PUT /api/v1/status/{id}": { body: { text: "Недозвон", buttonText: "Недозвон", color: "#f59e0b" } },
    "POST /api/v1/templates": { body: { name: "Ещё", isActive: false, templateFields: "[]" } },
    "PUT /api/v1/templates/{id}": { body: { name: "Шаблон", isActive: true, templateFields: JSON.stringify([{ label: "Имя", type: "text" }]) } },
    "PATCH /api/v1/users/{id}": { body: { displayName: "Изменено" } },
  };
  return samples[key] ?? {};
}

async function callApi(route: { key: string; method: string; path: string }, token: string | null, target: Target) {
  const url = fillPath(route.path, target);
  const { body, query } = payload(route.key, target);
  let req = t.request[route.method.toLowerCase() as "get"](url);
  if (token) req = req.set(bearer(token));
  if (query) req = req.query(query);
  if (body !== undefined) req = req.send(body as object);
  else if (route.method !== "GET" && route.method !== "DELETE") req = req.set("Content-Type", "application/json");
  const res = await req;
  return { status: res.status, body: res.body as { error?: string; message?: string }, url };
}

/** Managers' tokens die when a logout route runs for them: log in again when that happens. */
async function managerToken(): Promise<string> {
  const check = await t.request.get(`/api/v1/users/${f.a.id}`).set(bearer(f.aToken));
  if (check.status === 401) {
    await t.db.update(users).set({ gettingFilter: f.filterId }).where(eq(users.id, f.a.id));
    f.aToken = await t.tokenFor(f.a);
  }
  return f.aToken;
}

// ---------------------------------------------------------------------------------------------- pages

const form = formBody;
const pageSession = (credentials: Creds) => pageSessionCookie(t, credentials);

function pageUrl(url: string, mine: boolean): string {
  return url
    .replace(":script", String(mine ? f.sharedScriptId : f.scriptId))
    .replace(":filter", String(f.filterId))
    .replace(":export", String(f.exportId))
    .replace(":worker", String(f.b.id));
}

const routesDir = path.resolve("app/routes");
const hasAction = (file: string) =>
  /export\s+(async\s+)?function\s+action\b|export\s+const\s+action\b/.test(fs.readFileSync(path.join(routesDir, file), "utf8"));
const pages = () =>
  Object.entries(PAGE_ROUTES).filter((entry): entry is [string, { access: PageAccess; url: string; postOnly?: boolean }] => Boolean(entry[1].url));

describe("the page authorization matrix (from app/routes)", () => {
  it("classifies every route module, and only those", () => {
    const files = fs.readdirSync(routesDir).filter((file) => /\.(tsx|ts|jsx|js)$/.test(file));
    expect(
      files.filter((file) => !(file in PAGE_ROUTES)),
      "new page routes: add them to PAGE_ROUTES",
    ).toEqual([]);
    expect(Object.keys(PAGE_ROUTES).filter((file) => !files.includes(file))).toEqual([]);
  });

  it("sends an anonymous visitor of every logged-in page to /auth (GET and POST)", async () => {
    const wrong: string[] = [];
    for (const [file, { access, url, postOnly }] of pages()) {
      const address = pageUrl(url, false);
      const res = postOnly ? { status: 302, headers: { location: "/auth" }, body: {} } : await t.request.get(address);
      if (access === "public") {
        if (res.status >= 500 || res.status === 401 || res.status === 403) wrong.push(`${file} GET ${address} → ${res.status}`);
        continue;
      }
      if (access === "resource") {
        if (res.status !== 401 || res.body.message !== "Требуется вход в систему") wrong.push(`${file} GET → ${res.status}`);
        continue;
      }
      if (res.status !== 302 || res.headers.location !== "/auth") wrong.push(`${file} GET ${address} → ${res.status} ${res.headers.location}`);
      if (hasAction(file)) {
        const post = await t.request
          .post(address)
          .set("Content-Type", "application/x-www-form-urlencoded")
          .send(form({ intent: "x" }));
        if (post.status !== 302 || post.headers.location !== "/auth") wrong.push(`${file} POST ${address} → ${post.status} ${post.headers.location}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("lists every admin page's address among common/'s admin screens (the topic rule and the walks read that list)", () => {
    const unlisted = pages()
      .filter(([, r]) => r.access === "admin")
      .map(([, r]) => r.url.split("?")[0])
      .filter((url) => !isAdminScreen(url));
    expect(unlisted, "add them to ADMIN_SCREENS in common/admin-screens.ts").toEqual([]);
  });

  // A manager without a topic is sent to /getFilters from his own pages, never from an admin screen: 403 there too.
  it.each([
    ["with a topic", "a" as const, true],
    ["without a topic", "c" as const, false],
  ])("answers a manager %s 403 on every admin page, for GET and for a form post", async (_, who, hasTopic) => {
    await t.db
      .update(users)
      .set({ gettingFilter: hasTopic ? f.filterId : 0, isOnline: true })
      .where(eq(users.id, f[who].id));
    const session = await pageSession(f[who]);
    const wrong: string[] = [];
    for (const [file, { url, postOnly }] of pages().filter(([, r]) => r.access === "admin")) {
      const address = pageUrl(url, false);
      if (!postOnly) {
        const res = await getPage(t, address, session);
        if (res.status !== 403) wrong.push(`${file} GET ${address} → ${res.status}`);
        // The 403 page of a screen, or the core's message from a resource route.
        else if (!/Доступ запрещён|Недостаточно прав/.test(res.text)) wrong.push(`${file} GET: no 403 message: ${res.text.slice(0, 200)}`);
      }
      if (hasAction(file)) {
        const post = await t.request
          .post(address.includes("?") ? address : `${address}${file.endsWith("_index.tsx") ? "?index" : ""}`)
          .set("Cookie", session)
          .set("Content-Type", "application/x-www-form-urlencoded")
          .send(form({ intent: "delete", id: String(f.baseId) }));
        if (post.status !== 403) wrong.push(`${file} POST ${address} → ${post.status}`);
      }
    }
    expect(wrong).toEqual([]);
    // The refused posts changed nothing: the base is still there.
    expect((await t.request.get("/api/v1/database").set(bearer(f.adminToken))).body.some((b: { id: number }) => b.id === f.baseId)).toBe(true);
  });

  it("lets a manager with a topic open every logged-in page that is his (not 401/403, no redirect to /auth)", async () => {
    const session = await pageSession(f.a);
    const wrong: string[] = [];
    for (const [file, { url }] of pages().filter(([, r]) => r.access === "user" || r.access === "self" || r.access === "resource")) {
      const address = pageUrl(url, true);
      const res = await getPage(t, address, session);
      const bad = res.status === 401 || res.status === 403 || res.status >= 500 || res.headers.location === "/auth";
      // /webPhone without WEBPHONE_URL has nowhere to go: 404.
      if (bad) wrong.push(`${file} GET ${address} → ${res.status} ${res.headers.location ?? ""}`);
    }
    expect(wrong).toEqual([]);
    // A script that no topic of his lists is not shown to him.
    const hidden = await getPage(t, `/scripts/view/${f.scriptId}`, session);
    expect(hidden.status).toBe(404);
    expect(hidden.text).not.toContain("секрет");
    const shared = await getPage(t, `/scripts/view/${f.sharedScriptId}`, session);
    expect(shared.status).toBe(200);
    expect(shared.text).toContain("для всех");
  });

  it("lets the admin open every page (never 401/403, never sent to /auth)", async () => {
    const session = await pageSession(ADMIN);
    const wrong: string[] = [];
    for (const [file, { access, url, postOnly }] of pages()) {
      if (access === "public" || postOnly) continue;
      const address = pageUrl(url, false);
      const res = await getPage(t, address, session);
      const bad = res.status === 401 || res.status === 403 || res.status >= 500 || res.headers.location === "/auth";
      if (bad) wrong.push(`${file} GET ${address} → ${res.status} ${res.headers.location ?? ""}`);
    }
    expect(wrong).toEqual([]);
  });
});

// The API matrix runs after the pages: its admin pass deletes the fixtures at the very end.
describe("the API authorization matrix (from /api/v1/openapi.json)", () => {
  it("classifies every route of the OpenAPI description, and only those", () => {
    const unclassified = openapiRoutes.map((r) => r.key).filter((key) => !(key in API_ROUTES));
    expect(unclassified, "new API routes: add them to API_ROUTES with their access").toEqual([]);
    const gone = Object.keys(API_ROUTES).filter((key) => !openapiRoutes.some((r) => r.key === key));
    expect(gone, "routes in API_ROUTES that the API no longer has").toEqual([]);
    // The description's own `security: []` agrees with the table.
    for (const route of openapiRoutes) expect(`${route.key}: ${route.isPublic}`).toBe(`${route.key}: ${API_ROUTES[route.key] === "public"}`);
  });

  it("answers 401 with the Russian message to an anonymous caller on every non-public route", async () => {
    const wrong: string[] = [];
    for (const route of openapiRoutes) {
      const res = await callApi(route, null, "own");
      if (API_ROUTES[route.key] === "public") {
        if (res.status === 401 || res.status === 403) wrong.push(`${route.key} → ${res.status}`);
      } else if (res.status !== 401 || res.body.message !== "Требуется вход в систему") {
        wrong.push(`${route.key} → ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("answers a bearer token that is not a session with 401 on every non-public route", async () => {
    const wrong: string[] = [];
    for (const route of openapiRoutes.filter((r) => API_ROUTES[r.key] !== "public")) {
      const res = await callApi(route, "made-up-token", "own");
      if (res.status !== 401) wrong.push(`${route.key} → ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it("refuses a manager every admin route with 403 and changes nothing", async () => {
    const wrong: string[] = [];
    for (const route of openapiRoutes.filter((r) => API_ROUTES[r.key] === "admin")) {
      // User-targeting admin routes aim at another manager (B).
      const res = await callApi(route, await managerToken(), "other");
      if (res.status !== 403 || typeof res.body.message !== "string" || !/[а-я]/i.test(res.body.message)) {
        wrong.push(`${route.key} → ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    expect(wrong).toEqual([]);
    // Nothing the refused calls aimed at changed.
    const b = await reloadUser(t.db, f.b.id);
    expect(b.displayName).toBe("Борис");
    expect(b.isAdmin).toBe(false);
    expect((await t.request.get("/api/v1/links").set(bearer(f.adminToken))).body).toHaveLength(1);
    expect((await t.request.get(`/api/v1/users/balance/${f.b.id}`).set(bearer(f.adminToken))).body.balance).toBe(0);
  });

  it("refuses a manager every admin route with 403 whatever body he sends: the role is checked before the body", async () => {
    const wrong: string[] = [];
    const garbage = { name: ["не строка"], amount: "много", login: 7 };
    for (const route of openapiRoutes.filter((r) => API_ROUTES[r.key] === "admin" && r.method !== "GET" && r.method !== "DELETE")) {
      const res = await t.request[route.method.toLowerCase() as "post"](fillPath(route.path, "other"))
        .set(bearer(await managerToken()))
        .send(garbage);
      if (res.status !== 403) wrong.push(`${route.key} → ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("holds an integration's API key to its scopes on every route: read any GET, write the lead routes too, admin all; revoked: 401", async () => {
    const keyOf = async (scopes: string[]) => {
      const made = await t.request
        .post("/api/v1/api-keys")
        .set(bearer(f.adminToken))
        .send({ name: `Матрица ${scopes.join("+")}`, scopes });
      expect(made.status).toBe(200);
      return made.body as { key: string; apiKey: { id: number } };
    };
    const read = await keyOf(["read"]);
    const write = await keyOf(["write"]);
    const admin = await keyOf(["admin"]);
    const refusedByScope = (res: { status: number; body: { error?: string; message?: string } }) =>
      res.status === 403 && res.body.error === "api_key_scope" && /^У этого ключа API нет права «/.test(res.body.message ?? "");
    const wrong: string[] = [];
    const routes = openapiRoutes.filter((r) => API_ROUTES[r.key] !== "public" && !r.key.includes("logout") && !r.key.startsWith("DELETE"));
    for (const route of routes) {
      const needed = KEY_SCOPES[route.key] ?? (route.method === "GET" ? "read" : "admin");
      for (const [name, key, allowed] of [
        ["read", read.key, needed === "read"],
        ["write", write.key, needed !== "admin"],
      ] as const) {
        const res = await callApi(route, key, "own");
        if (allowed ? refusedByScope(res) || res.status === 401 : !refusedByScope(res))
          wrong.push(`${name} ${route.key} → ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    // Every method of a DELETE route is an admin's: refused to read and write keys before anything is deleted.
    for (const route of openapiRoutes.filter((r) => r.method === "DELETE" && API_ROUTES[r.key] !== "public")) {
      for (const key of [read.key, write.key]) {
        const res = await callApi(route, key, "own");
        if (!refusedByScope(res)) wrong.push(`${route.key} → ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
    // The admin key acts as the admin who made it.
    const users = await t.request.get("/api/v1/users").set(bearer(admin.key));
    expect(users.status).toBe(200);
    const made = await t.request.post("/api/v1/links").set(bearer(admin.key)).send({ name: "Ключом", link: "https://example.net", isActive: false });
    expect(made.status).toBe(200);
    await t.request.delete(`/api/v1/links/${made.body.id}`).set(bearer(admin.key));
    // Revoked: the very next request is refused.
    expect((await t.request.delete(`/api/v1/api-keys/${admin.apiKey.id}`).set(bearer(f.adminToken))).status).toBe(200);
    const after = await t.request.get("/api/v1/users").set(bearer(admin.key));
    expect(after.status).toBe(401);
    expect(after.body.message).toBe("Требуется вход в систему");
  });

  it("lets a manager call the user and self-scoped routes for himself (never 401/403)", async () => {
    const wrong: string[] = [];
    const routes = openapiRoutes.filter((r) => API_ROUTES[r.key] === "user" || API_ROUTES[r.key] === "self");
    // His own logout last: it ends the token.
    routes.sort((x, y) => Number(x.key.includes("logout")) - Number(y.key.includes("logout")));
    for (const route of routes) {
      const res = await callApi(route, await managerToken(), "own");
      if (res.status === 401 || res.status === 403 || res.status >= 500) wrong.push(`${route.key} → ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("refuses a manager another manager's data on every self-scoped route with 403", async () => {
    const wrong: string[] = [];
    for (const route of openapiRoutes.filter((r) => API_ROUTES[r.key] === "self")) {
      const res = await callApi(route, await managerToken(), "other");
      if (res.status !== 403) wrong.push(`${route.key} → ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(wrong).toEqual([]);
    // B was not logged out, and his topic did not change.
    const b = await reloadUser(t.db, f.b.id);
    expect(b.gettingFilter).toBe(f.filterId);
    const bToken = await t.tokenFor(f.b);
    expect((await t.request.get(`/api/v1/users/${f.b.id}`).set(bearer(bToken))).status).toBe(200);
    // Reading B's data as A names the reason in Russian.
    const res = await t.request.get(`/api/v1/statistics/personal/${f.b.id}`).set(bearer(await managerToken()));
    expect(res.body).toEqual({ error: "forbidden", message: "Можно работать только со своими данными" });
  });

  it("scopes the any-user lists to the manager: only his topics and the scripts they give him", async () => {
    const other = await createFilterRow(t.db, { name: "Чужая тематика", managerIds: [f.c.id], databaseIds: [f.baseId], statusIds: [f.statusId] });
    const token = await managerToken();
    const filters = (await t.request.get("/api/v1/filters").set(bearer(token))).body as Array<{ id: number; name: string }>;
    expect(filters.map((x) => x.name)).toEqual(["Тематика матрицы"]);
    const scripts = (await t.request.get("/api/v1/scripts").set(bearer(token))).body as Array<{ name: string }>;
    expect(scripts.map((x) => x.name)).toEqual(["Общий"]);
    // The admin sees them all.
    const all = (await t.request.get("/api/v1/filters").set(bearer(f.adminToken))).body as Array<{ id: number }>;
    expect(all.map((x) => x.id)).toContain(other.id);
  });

  it("never answers 401 or 403 to the admin, on any route (writes last, deletes at the very end)", async () => {
    const wrong: string[] = [];
    // Self-scoped calls first (before a toggle deactivates the topic), then reads, writes, deletes.
    const rank = (r: { key: string; method: string }) =>
      API_ROUTES[r.key] === "self" ? (r.key.includes("logout") ? 4 : 0) : r.method === "DELETE" ? 3 : r.method === "GET" ? 1 : 2;
    const routes = [...openapiRoutes].sort((x, y) => rank(x) - rank(y));
    for (const route of routes) {
      // User routes aim at a manager (self-scoped ones: the admin acts for A; user admin: the spare C).
      const target: Target = API_ROUTES[route.key] === "self" ? "own" : "spare";
      const res = await callApi(route, f.adminToken, target);
      if (res.status === 401 || res.status === 403 || res.status >= 500) wrong.push(`${route.key} → ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(wrong).toEqual([]);
  });
});
