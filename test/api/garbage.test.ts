import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { queryRows } from "../../db/client";
import { MAX_PATH_LENGTH } from "../../server/http/paths";
import { ADMIN, bearer, createUser, useTestApp } from "../helpers/app";
import { buildXlsx } from "../helpers/xlsx";

/**
 * Walks the whole route table from the OpenAPI description and sends garbage to every route, as an anonymous
 * caller, as a manager and as an admin: wrong types, huge strings, odd unicode (lone surrogates, NUL, RTL marks),
 * missing and extra fields, bad ids, bad JSON, wrong content types, bad query strings. Whatever arrives, the API
 * answers below 500; every 4xx is `{ error, message }` with a Russian message; and a 4xx writes nothing: no table
 * had a row inserted, deleted or changed while it was answered (`fingerprint`).
 * Then the HTTP edge of the whole app (pages, /api/v1, /realtime): paths of many slashes, odd methods, and hostile
 * redirect targets in the page forms.
 */
let adminToken = "";
let managerToken = "";
/** A third user that garbage may legitimately change (never the callers themselves). */
let victim = { id: 0, login: "" };
/** A real base and status, so plausible bodies name rows that exist. */
let baseId = 0;
let statusId = 0;
/** Answers seen, by error code (and "2xx"): the garbage must get past the schema checks, not only bounce there. */
const seen = new Map<string, number>();

interface Route {
  method: "get" | "post" | "put" | "patch" | "delete";
  path: string;
  isPublic: boolean;
  /** Body fields the OpenAPI description names (empty for loosely declared bodies). */
  bodyFields: string[];
  requiredFields: string[];
  bodySchema: JsonSchema | null;
  queryParams: string[];
  multipart: boolean;
}
interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  nullable?: boolean;
}
const routes: Route[] = [];
/** GARBAGE_RUNS=10 multiplies every run count (a longer hunt on a dev machine).  */
const RUNS = Number(process.env.GARBAGE_RUNS ?? 1);
/** A loaded 2-core machine can be several times slower than a quiet one. */
const LONG = 180_000 * RUNS;

const t = useTestApp({ web: true });
beforeAll(async () => {
  adminToken = await t.adminToken();
  const manager = await createUser(t.db, { login: "garbage-manager" });
  managerToken = await t.tokenFor(manager);
  const other = await createUser(t.db, { login: "garbage-victim" });
  victim = { id: other.user.id, login: other.login };
  const imported = await t.request
    .post("/api/v1/database/import")
    .set(bearer(adminToken))
    .field("name", "База для мусора")
    .field("mappings", JSON.stringify(["name", "phone"]))
    .attach(
      "file",
      await buildXlsx([
        ["ФИО", "Телефон"],
        ["Иван", "0501234567"],
        ["Пётр", "0671234567"],
      ]),
      "a.xlsx",
    );
  expect(imported.status).toBe(200);
  baseId = imported.body.id;
  statusId = (await t.request.get("/api/v1/status").set(bearer(adminToken))).body[0].id;
  const spec = (await t.request.get("/api/v1/openapi.json")).body as {
    paths: Record<
      string,
      Record<
        string,
        {
          security?: unknown[];
          parameters?: Array<{ in: string; name: string }>;
          requestBody?: { content: Record<string, { schema?: JsonSchema }> };
          consumes?: string[];
        }
      >
    >;
  };
  for (const [path, operations] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const bodySchema = operation.requestBody?.content["application/json"]?.schema ?? null;
      routes.push({
        method: method as Route["method"],
        path,
        isPublic: Array.isArray(operation.security) && operation.security.length === 0,
        bodyFields: Object.keys(bodySchema?.properties ?? {}),
        requiredFields: bodySchema?.required ?? [],
        bodySchema,
        queryParams: (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
        multipart: /\/database\/(preview|import)$/.test(path),
      });
    }
  }
});

// ---------------------------------------------------------------------------------------------------------------
// The fingerprint: per table of the schema (from information_schema, on either backend), how many rows were
// inserted, deleted or changed in it. Row triggers count them (an UPDATE that leaves a row as it was is no change)
// in the writing transaction, so a write rolled back counts nothing. They replace a hash of every table's rows,
// read before and after each of the ~5,000 answers.

let counting = false;

/** Installs the counting triggers on every table (once). */
async function countWrites() {
  const tables = await queryRows<{ table_name: string }>(
    t.db,
    sql`select table_name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`,
  );
  expect(tables.length).toBeGreaterThan(10);
  await t.db.execute(sql`create table garbage_writes (t text primary key, n bigint not null)`);
  await t.db.execute(sql`create function garbage_write() returns trigger language plpgsql as $$
    begin
      insert into garbage_writes values (TG_TABLE_NAME, 1) on conflict (t) do update set n = garbage_writes.n + 1;
      return null;
    end $$`);
  for (const { table_name: name } of tables) {
    const table = sql.identifier(name);
    await t.db.execute(sql`create trigger garbage_rows after insert or delete on ${table} for each row execute function garbage_write()`);
    await t.db.execute(
      sql`create trigger garbage_changes after update on ${table} for each row when (old.* is distinct from new.*) execute function garbage_write()`,
    );
    await t.db.execute(sql`create trigger garbage_truncate after truncate on ${table} for each statement execute function garbage_write()`);
  }
  counting = true;
}

async function fingerprint(): Promise<Map<string, string>> {
  if (!counting) await countWrites();
  const rows = await queryRows<{ t: string; n: string }>(t.db, sql`select t, n::text as n from garbage_writes`);
  return new Map(rows.map((r) => [r.t, r.n]));
}

function changedTables(before: Map<string, string>, after: Map<string, string>, ignore: string[] = []) {
  return [...after.keys()].filter((name) => !ignore.includes(name) && before.get(name) !== after.get(name));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** After a 2xx (which may write, and may start an export job): the fingerprint once the database is still. */
async function settled(): Promise<Map<string, string>> {
  let previous = await fingerprint();
  for (let i = 0; i < 100; i++) {
    await sleep(30);
    const [{ pending }] = await queryRows<{ pending: number }>(
      t.db,
      sql`select count(*)::int as pending from exports where not is_exported and error is null`,
    );
    const next = await fingerprint();
    if (Number(pending) === 0 && changedTables(previous, next).length === 0) return next;
    previous = next;
  }
  return previous;
}

// ---------------------------------------------------------------------------------------------------------------
// Garbage.

/** Never a real row's id: garbage must not be able to delete or log out the callers. */
const badId = fc.oneof(
  fc.constantFrom(
    "0",
    "-1",
    "abc",
    "1.5",
    "1e3",
    "0x10",
    "99999999999999999999",
    "2147483648",
    "-2147483649",
    "9999999",
    "%F0%9F%92%A9",
    "%00",
    "%D8%00",
    "%E2%80%AE1",
    "null",
    "undefined",
    "NaN",
    "Infinity",
    "' or 1=1 --",
    "1;drop table users",
    "..%2F..%2Fetc",
    encodeURIComponent("я".repeat(300)),
    "x".repeat(2000),
  ),
  fc
    .string({ maxLength: 30, unit: "grapheme" })
    .filter((s) => !/^\s*\+?0*[0-9]{1,6}\s*$/.test(s))
    .map((s) => encodeURIComponent(s) || "x"),
);

/** Odd text: lone surrogates, NUL, RTL and zero-width marks, combining marks, injection-looking strings. */
const oddText = fc.constantFrom(
  "\uD800",
  "a\uDC00b",
  "\uDBFF\uDFFF",
  "\u0000",
  "x\u0000y",
  "\u202Eтекст\u202C",
  "\u200F\u200E\u200B\u2060",
  "\uFEFF",
  "e\u0301\u0301\u0301",
  "\uFFFF\uFFFE",
  "\u2028\u2029",
  "😀👨‍👩‍👧",
  "' or 1=1 --",
  "<script>alert(1)</script>",
  "javascript:alert(1)",
  "../../etc/passwd",
  "${7*7}{{7*7}}",
  "   ",
  "",
  "NaN",
  "-0",
  "1e309",
  "#zzzzzz",
  "2024-02-30T25:61:00Z",
);
const hugeText = fc.constantFrom("x".repeat(100_000), "я".repeat(50_000), "😀".repeat(20_000), "\uD800".repeat(5_000), "\u0000".repeat(10_000));
const anyText = fc.oneof(fc.string({ maxLength: 40, unit: "binary" }), oddText, hugeText);
const leaf = fc.oneof(
  anyText,
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom(0, -1, 2147483648, -2147483649, Number.MAX_SAFE_INTEGER + 2, 1e308, -1e308, 0.1, 5e-324),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const garbageValue = fc.oneof(
  { weight: 4, arbitrary: leaf },
  { weight: 1, arbitrary: fc.array(leaf, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), leaf, { maxKeys: 4 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      [[[[[1]]]]],
      Array.from({ length: 5000 }, (_, i) => i),
      { toString: 1, valueOf: 2 },
    ),
  },
);

/** Field names the core reads somewhere (for loosely declared bodies), and the usual suspects. */
const COMMON_FIELDS = [
  "name",
  "text",
  "buttonText",
  "color",
  "link",
  "content",
  "label",
  "prefix",
  "order",
  "type",
  "kind",
  "isActive",
  "isHidden",
  "isTechnical",
  "isReportStatus",
  "holdMinutes",
  "templateFields",
  "login",
  "password",
  "displayName",
  "accessKey",
  "telegram",
  "sipLogin",
  "sipPassword",
  "isAdmin",
  "amount",
  "userId",
  "workerId",
  "user",
  "processTime",
  "withPassport",
  "withoutPassport",
  "filterId",
  "contactId",
  "statusText",
  "passport",
  "clientInfo",
  "date",
  "phone",
  "applicationText",
  "databaseIds",
  "statusIds",
  "managers",
  "databases",
  "statuses",
  "scripts",
  "template",
  "removeDuplicatesInBase",
  "removeDuplicatesAcrossBases",
  "defaultInfo",
  "term",
  "mappings",
  "hasHeader",
  "id",
];
const EXTRA_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "isAdmin",
  "id",
  "createdAt",
  "balanceCents",
  "passwordHash",
  "x".repeat(500),
  "\u0000",
  "\uD800",
];

/** A plausible value of a schema: the starting point that garbage then breaks field by field. */
function plausible(schema: JsonSchema | undefined, field = ""): unknown {
  if (schema?.enum?.length) return schema.enum[0];
  switch (schema?.type) {
    case "string":
      return field === "password" ? "Garbage-pass-1" : `мусор-${field}`;
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    case "array":
      return [plausible(schema.items)];
    case "object":
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, plausible(v, k)]));
    default:
      return field.endsWith("Ids") || ["managers", "databases", "statuses", "scripts"].includes(field) ? [1] : `мусор-${field}`;
  }
}

/** Valid bodies of the loosely declared routes (their core schema checks them): garbage breaks one field at a time. */
function plausibleBody(route: Route): Record<string, unknown> {
  const path = route.path.replace(/^\/api\/v1/, "");
  const bodies: Array<[RegExp, Record<string, unknown>]> = [
    [/^\/database\/settings$/, { removeDuplicatesInBase: true, removeDuplicatesAcrossBases: false, defaultInfo: "по умолчанию" }],
    [/^\/database\/exports$/, { name: "Экспорт мусора", databaseIds: [baseId], statusIds: [statusId] }],
    [/^\/filters(\/\{id\})?$/, { name: "Фильтр", managers: [victim.id], databases: [baseId], statuses: [statusId], scripts: [], template: null }],
    [
      /^\/status(\/\{id\})?$/,
      {
        text: "Мусорный",
        buttonText: "Мусорный",
        color: "#123456",
        isHidden: false,
        description: "",
        order: 5,
        isReportStatus: false,
        isTechnical: false,
      },
    ],
    [/^\/scripts(\/\{id\})?$/, { name: "Скрипт", content: "<p>Здравствуйте</p>" }],
    [/^\/templates(\/\{id\})?$/, { name: "Шаблон", isActive: false, templateFields: [{ label: "Поле", type: "text" }] }],
    [/^\/links(\/\{id\})?$/, { name: "Ссылка", link: "https://example.com/", isActive: false }],
    [/^\/status\/update-and-get-lead$/, { statusText: "Мусорный", contactId: 1, userId: victim.id, passport: "", filterId: 1, clientInfo: "" }],
    [
      /^\/status\/proxy-application$/,
      { date: "2026-01-01", user: { id: victim.id, login: victim.login }, applicationText: "Заявка", phone: "0501234567" },
    ],
    [/^\/payments\/history\/\{workerId\}\/history$/, { processTime: 1_700_000_000_000 }],
    [/^\/payments\/process$/, { userId: victim.id, amount: 1 }],
    [/^\/payments\/rates$/, { withPassport: 1, withoutPassport: 2 }],
  ];
  const fromSchema = (route.bodySchema?.properties ? plausible(route.bodySchema) : {}) as Record<string, unknown>;
  const known = bodies.find(([pattern]) => pattern.test(path))?.[1] ?? {};
  return { ...fromSchema, ...known };
}

function bodyArbitrary(route: Route) {
  const base = plausibleBody(route);
  const fields = Object.keys(base).length ? Object.keys(base) : COMMON_FIELDS;
  return fc.oneof(
    // Wrong types, huge and odd strings in some fields.
    fc.dictionary(fc.constantFrom(...fields), garbageValue, { minKeys: 1, maxKeys: 4 }).map((broken) => ({ ...base, ...broken })),
    // Missing fields.
    fc.subarray(fields, { minLength: 1 }).map((drop) => Object.fromEntries(Object.entries(base).filter(([k]) => !drop.includes(k)))),
    // Extra fields.
    fc.dictionary(fc.oneof(fc.constantFrom(...EXTRA_KEYS), fc.string({ maxLength: 12 })), garbageValue, { minKeys: 1, maxKeys: 3 }).map((extra) => {
      const body = { ...base };
      for (const [k, v] of Object.entries(extra)) Object.defineProperty(body, k, { value: v, enumerable: true });
      return body;
    }),
    // Not an object at all.
    fc.oneof(leaf, fc.array(garbageValue, { maxLength: 5 })),
  );
}

/** A query string: the route's own parameters and others, with garbage values, repeated keys, broken escapes. */
function queryArbitrary(route: Route) {
  const names = [...route.queryParams, "id", "limit", "page", "__proto__", "term", "database"];
  return fc.oneof(
    fc
      .array(
        fc.tuple(
          fc.constantFrom(...names),
          fc.oneof(fc.string({ maxLength: 30, unit: "binary" }), oddText, fc.constantFrom("x".repeat(8_000), "-1", "0", "1e999", "[]", "{}")),
        ),
        { maxLength: 4 },
      )
      .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v.replace(/[\uD800-\uDFFF]/g, "\uFFFD"))}`).join("&")),
    fc.constantFrom(
      "%",
      "%zz=1",
      "a=%E0%A4%A",
      "a[b][c][d][e][f]=1",
      "a=1&a=2&a=3",
      "term=%00",
      "term=%D8%00",
      "=&=&",
      "&&&",
      "ids=1,2,x&all=false",
      "all=true&all=true",
      "term=%E2%80%AE",
    ),
  );
}

const rawPayload = fc.oneof(
  fc.record({
    contentType: fc.constantFrom(
      "application/json",
      "application/json; charset=latin1",
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/xml",
      "multipart/form-data; boundary=x",
      "multipart/form-data",
      "application/octet-stream",
      "image/png",
      "",
      "garbage",
    ),
    text: fc.oneof(
      fc.constantFrom(
        '{"a":',
        "[1,2",
        "",
        "null",
        "\u0000",
        "--x\r\n",
        '--x\r\nContent-Disposition: form-data; name="file"; filename="a.xlsx"\r\n\r\nPK',
        '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"isAdmin":true}}}',
        '{"name":"\\ud800","login":"\\u0000"}',
        "\uFEFF{}",
        '{"a":1}{"b":2}',
        "[".repeat(5000) + "]".repeat(5000),
        '{"name":' + "1".repeat(400) + "}",
        '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>',
        "name=1&name=2&login[]=x",
      ),
      fc.string({ maxLength: 200, unit: "binary" }),
    ),
  }),
);

// ---------------------------------------------------------------------------------------------------------------
// Sending and checking.

/**
 * Who sends a test's garbage, and for which test: `signal` is the test's own (aborted when it times out, so its
 * loop stops sending and never writes while the next test checks that nothing was written), `started` when it
 * began (runsFor).
 */
type Caller = { role: string; token: string | null; signal: AbortSignal; started: number };

const callerOf = (role: string, token: string | null, signal: AbortSignal): Caller => ({ role, token, signal, started: Date.now() });

/** The fewest random runs each route gets however slow the machine is. */
const MIN_RUNS = 2;

/**
 * A route's random runs: all `numRuns` while the test is in the first half of its time, MIN_RUNS after. A loaded
 * machine can be several times slower than a quiet one: every route is still sent garbage, with fewer samples,
 * and the test ends before its timeout instead of failing on it.
 */
function runsFor(caller: Caller, numRuns: number) {
  return Date.now() - caller.started < LONG / 2 ? numRuns : Math.min(numRuns, MIN_RUNS);
}

function fillPath(path: string, id: string) {
  return path.replace(/\{[^}]+\}/g, id);
}

const CYRILLIC = /[А-Яа-яЁё]/;

/**
 * The fingerprint the last check left, while a test sends nothing but checks: the next check's "before" (between
 * two checks nothing writes: a 2xx's writes are settled first). Half the fingerprints.
 */
let lastPrint: Map<string, string> | null = null;
beforeEach(() => {
  lastPrint = null;
});

/** Every answer below 500; every 4xx `{ error, message }` with a Russian message, and (for a 4xx) nothing written. */
async function check(route: Route, where: string, send: () => Promise<{ status: number; body: unknown; text?: string }>) {
  const before = lastPrint ?? (await fingerprint());
  lastPrint = null;
  const res = await send();
  const code = res.status < 400 ? "2xx" : String((res.body as { error?: unknown })?.error);
  seen.set(code, (seen.get(code) ?? 0) + 1);
  expect(res.status, `${where} → ${res.status} ${res.text?.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.body, where).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    const { error, message } = res.body as { error: string; message: string };
    expect(error.length, where).toBeGreaterThan(0);
    expect(message, `${where}: the message of "${error}"`).toMatch(CYRILLIC);
    // A failed login is counted for throttling (on purpose): that table may change on a refused login.
    const ignore = route.path.endsWith("/auth/login") ? ["login_throttle"] : [];
    const after = await fingerprint();
    expect(changedTables(before, after, ignore), `${where} → ${res.status} ${message}: wrote to`).toEqual([]);
    lastPrint = after;
  } else {
    lastPrint = await settled();
  }
}

function authorize<T extends { set(name: string, value: string): T }>(req: T, caller: Caller): T {
  caller.signal.throwIfAborted();
  return caller.token ? req.set("Authorization", bearer(caller.token).Authorization) : req;
}

/** Path ids: mostly bad ones, sometimes the victim's (routes that take a user) so garbage reaches the body checks. */
function idArbitrary(route: Route) {
  if (route.method === "delete" || route.path.includes("/auth/") || !/\{(id|userId|workerId|login)\}/.test(route.path)) return badId;
  return fc.oneof({ weight: 3, arbitrary: badId }, { weight: 1, arbitrary: fc.constant("victim") });
}

function urlFor(route: Route, id: string) {
  if (id !== "victim") return fillPath(route.path, id);
  return route.path.replace(/\{login\}/g, victim.login).replace(/\{[^}]+\}/g, String(victim.id));
}

/** fc.assert, but a failure reports our own message (the request, cut short), not a 100 KB counterexample. */
/** GARBAGE_SEED (with GARBAGE_PATH) replays a failure a run printed. */
const REPLAY = process.env.GARBAGE_SEED ? { seed: Number(process.env.GARBAGE_SEED), path: process.env.GARBAGE_PATH } : {};

async function holds(property: fc.IAsyncProperty<unknown[]>, numRuns: number) {
  const result = await fc.check(property, { numRuns, endOnFailure: true, ...REPLAY });
  if (result.failed) {
    const error = result.errorInstance as Error | undefined;
    throw new Error(`${String(error?.message ?? "the property failed").slice(0, 3000)}\n(seed ${result.seed}, path ${result.counterexamplePath})`);
  }
}

async function garbageRuns(caller: Caller, route: Route, numRuns: number) {
  const hasBody = !["get", "delete"].includes(route.method);
  await holds(
    fc.asyncProperty(idArbitrary(route), bodyArbitrary(route), queryArbitrary(route), async (id, body, query) => {
      const url = urlFor(route, id) + (query ? `?${query}` : "");
      const text = JSON.stringify(body) ?? "null";
      const where = `${caller.role} ${route.method.toUpperCase()} ${url.slice(0, 200)} ${hasBody ? text.slice(0, 200) : ""}`;
      await check(route, where, () => {
        const req = authorize(t.request[route.method](url), caller);
        return hasBody ? req.set("Content-Type", "application/json").send(text) : req;
      });
    }) as fc.IAsyncProperty<unknown[]>,
    runsFor(caller, numRuns),
  );
}

async function rawRuns(caller: Caller, route: Route, numRuns: number) {
  await holds(
    fc.asyncProperty(idArbitrary(route), rawPayload, async (id, { contentType, text }) => {
      const url = urlFor(route, id);
      const where = `${caller.role} ${route.method.toUpperCase()} ${url.slice(0, 200)} [${contentType}] ${JSON.stringify(text).slice(0, 120)}`;
      await check(route, where, () => {
        const req = authorize(t.request[route.method](url), caller);
        return (contentType ? req.set("Content-Type", contentType) : req.unset("Content-Type")).send(text);
      });
    }) as fc.IAsyncProperty<unknown[]>,
    runsFor(caller, numRuns),
  );
}

describe("garbage on every route of /api/v1", () => {
  it("finds the route table", () => {
    expect(routes.length).toBeGreaterThan(60);
    expect(routes.filter((r) => r.isPublic).map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(["post /api/v1/auth/login", "get /api/v1/health"]),
    );
  });

  it(
    "as anonymous: every non-public route is a 401 with a message whatever is sent, and public ones hold",
    async ({ signal }) => {
      const anonymous = callerOf("anonymous", null, signal);
      for (const route of routes) {
        if (route.isPublic) {
          await garbageRuns(anonymous, route, 40);
          if (route.method !== "get") await rawRuns(anonymous, route, 20);
          continue;
        }
        const res = await t.request[route.method](fillPath(route.path, "1"));
        const where = `${route.method.toUpperCase()} ${route.path}`;
        expect(res.status, where).toBe(401);
        expect(res.body, where).toMatchObject({ error: "unauthorized", message: "Требуется вход в систему" });
        await garbageRuns(anonymous, route, 2);
      }
      // A URL over Node's 16 KB header limit never reaches a route: the parser's answer is the same shape.
      await check(routes[0], "a 20 KB URL", () => t.request.get(`/api/v1/users?term=${"x".repeat(20_000)}`));
      // A bogus bearer token is the same as none.
      for (const token of ["x", "x".repeat(5000), "%00", "\u00ff\u00fe", "Bearer", "' or 1=1 --"]) {
        await check(routes[0], `token ${token.slice(0, 20)}`, () => t.request.get("/api/v1/users").set("Authorization", `Bearer ${token}`));
      }
    },
    LONG,
  );

  for (const role of ["manager", "admin"] as const) {
    it(
      `as ${role}: garbage JSON bodies, query strings and ids`,
      async ({ signal }) => {
        const caller = callerOf(role, role === "admin" ? adminToken : managerToken, signal);
        for (const route of routes) {
          if (route.isPublic || route.multipart) continue; // the multipart routes have their own runs below
          await garbageRuns(caller, route, (route.method === "get" || route.method === "delete" ? 8 : 20) * RUNS);
        }
      },
      LONG,
    );

    it(
      `as ${role}: broken payloads and wrong content types`,
      async ({ signal }) => {
        const caller = callerOf(role, role === "admin" ? adminToken : managerToken, signal);
        for (const route of routes.filter((r) => !r.isPublic && r.method !== "get")) {
          await rawRuns(caller, route, (route.multipart ? 16 : 6) * RUNS);
        }
      },
      LONG,
    );

    it(
      `as ${role}: the upload routes refuse broken forms`,
      async ({ signal }) => {
        const caller = callerOf(role, role === "admin" ? adminToken : managerToken, signal);
        for (const route of routes.filter((r) => r.multipart)) {
          await holds(
            fc.asyncProperty(
              fc.dictionary(
                fc.constantFrom("name", "mappings", "hasHeader", "file", "x", "\u0000"),
                fc.oneof(anyText, fc.constantFrom("[", '["name","phone"]', '"name"', "[1,2,3]", "null", "true", "{}")),
                { maxKeys: 4 },
              ),
              fc.option(
                fc.tuple(
                  fc.uint8Array({ maxLength: 300 }),
                  fc.constantFrom("a.xlsx", "a.xls", "", "..\\..\\x.xlsx", "я\u0000.xlsx", "\u202Exslx.exe"),
                ),
                { nil: undefined },
              ),
              async (fields, file) => {
                const where = `${role} POST ${route.path} ${JSON.stringify(fields).slice(0, 150)} file=${file ? file[1] : "none"}`;
                await check(route, where, () => {
                  const req = authorize(t.request.post(route.path), caller);
                  for (const [k, v] of Object.entries(fields)) req.field(k, v.replace(/[\uD800-\uDFFF]/g, "\uFFFD"));
                  if (file) req.attach("file", Buffer.from(file[0]), file[1] || "blob");
                  return req;
                });
              },
            ) as fc.IAsyncProperty<unknown[]>,
            15,
          );
        }
      },
      LONG,
    );
  }

  it(
    "as admin: a NUL in every path parameter and in the query string",
    async ({ signal }) => {
      const caller = callerOf("admin", adminToken, signal);
      for (const route of routes.filter((r) => !r.isPublic)) {
        const url = route.path.includes("{") ? fillPath(route.path, "1%00") : `${route.path}?term=a%00b&database=%00`;
        await check(route, `admin ${route.method.toUpperCase()} ${url}`, () => authorize(t.request[route.method](url), caller));
      }
    },
    LONG,
  );

  it("got past the schema checks: some garbage was valid, and refusals came from many different rules", () => {
    if (process.env.GARBAGE_STATS) console.log(JSON.stringify([...seen].sort((a, b) => b[1] - a[1])));
    expect(seen.get("2xx") ?? 0).toBeGreaterThan(10);
    expect(seen.size).toBeGreaterThan(15);
  });

  it("the fingerprint does notice a write (the check above is not vacuous)", async () => {
    const before = await fingerprint();
    const res = await t.request.post("/api/v1/links").set(bearer(adminToken)).send({ name: "Проверка", link: "https://example.org/" });
    expect(res.status).toBeLessThan(300);
    expect(changedTables(before, await fingerprint())).toEqual(["links"]);
  });

  it("the callers' sessions survived the garbage (it never logged them out)", async () => {
    expect((await t.request.get("/api/v1/users/online").set(bearer(adminToken))).status).toBe(200);
    expect((await t.request.get("/api/v1/status/visible").set(bearer(managerToken))).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The HTTP edge: requests sent byte for byte (superagent would tidy paths and refuse odd methods).

let port = 0;

function raw(method: string, path: string, headers: Record<string, string> = {}, body = "") {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const HOST = "app.example";
/** A Location a browser would follow stays on this host. */
function staysHere(location: string | undefined, where: string) {
  expect(location, where).toBeDefined();
  expect(new URL(location!, `http://${HOST}/`).host, `${where} → ${location}`).toBe(HOST);
}

/** Russian `{ error, message }` under /api/v1, a short Russian text on pages; never a 5xx, never a stack. */
function edgeAnswer(path: string, res: { status: number; headers: http.IncomingHttpHeaders; text: string }, where: string) {
  expect(res.status, `${where} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  expect(res.text, where).not.toMatch(/\n\s+at .+:\d+:\d+/);
  if (res.status === 308) {
    staysHere(res.headers.location, where);
    expect(res.headers.location!.split("?")[0], where).not.toMatch(/\/\/|\\/);
  }
  if (res.status >= 400 && res.text && /^\/api\/v1(\/|$|\?)/.test(path)) {
    const body = JSON.parse(res.text) as { error: string; message: string };
    expect(body.message, where).toMatch(CYRILLIC);
  }
}

const slashRun = fc.oneof(
  fc.constantFrom("/", "//", "///", "\\", "/\\", "\\\\"),
  fc.integer({ min: 2, max: 16_000 }).map((n) => "/".repeat(n)),
);
const segment = fc.constantFrom(
  "a",
  "api",
  "v1",
  "health",
  "users",
  "1",
  "realtime",
  "build",
  "auth",
  "managers",
  ".",
  "..",
  "%2F",
  "%2e%2e",
  "%00",
  "%D0%AF",
  "x".repeat(300),
);
/** A path of page, API and realtime prefixes, runs of slashes and segments, sometimes a query. */
const oddPath = fc
  .tuple(
    fc.constantFrom("", "/api/v1", "/api/v1/health", "/realtime", "/build", "/auth", "/managers", "/payments/history/1"),
    fc.array(fc.tuple(slashRun, segment), { maxLength: 6 }),
    fc.option(fc.constantFrom("?a=//b", "?redirectTo=//evil.example", "?x=" + "/".repeat(3000)), { nil: "" }),
  )
  .map(([prefix, parts, query]) => `${prefix}${parts.map(([run, seg]) => run + seg).join("")}${query}`)
  // Under Node's 16 KB header limit (over it, the parser answers: the API walk above covers that).
  .map((path) => (path.startsWith("/") ? path : `/${path}`).slice(0, 14_000));

/** Methods beyond the usual: WebDAV, TRACE, and the ones no page form uses. */
const ODD_METHODS = [
  "OPTIONS",
  "TRACE",
  "PROPFIND",
  "PROPPATCH",
  "MKCOL",
  "COPY",
  "MOVE",
  "LOCK",
  "UNLOCK",
  "SEARCH",
  "REPORT",
  "PURGE",
  "PUT",
  "PATCH",
  "DELETE",
];
const PAGES = [
  "/",
  "/auth",
  "/auth/recovery",
  "/leadpanel",
  "/managers",
  "/payments",
  "/payments/history/1",
  "/theme",
  "/logout",
  "/webPhone",
  "/balance",
  "/importbase/progress",
  "/no/such/page",
  "/build/x.js",
];

describe("garbage at the HTTP edge (pages, /api/v1, /realtime)", () => {
  let cookie = "";
  const logged: unknown[] = [];

  beforeAll(async () => {
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    port = (t.app.server.address() as AddressInfo).port;
    const login = await raw(
      "POST",
      "/auth?index",
      { "Content-Type": "application/x-www-form-urlencoded", Host: HOST },
      new URLSearchParams(ADMIN).toString(),
    );
    expect(login.status).toBe(302);
    cookie = ([] as string[])
      .concat(login.headers["set-cookie"] ?? [])
      .find((c) => c.startsWith("session="))!
      .split(";")[0];
    // Garbage is the caller's fault: none of it may write a stack trace to the log.
    vi.spyOn(console, "error").mockImplementation((...args) => void logged.push(args));
  });
  afterAll(() => {
    vi.restoreAllMocks();
  });

  it(
    "paths of many slashes, backslashes and dot segments: 414 or a redirect that stays here, never a 5xx",
    async () => {
      const before = await fingerprint();
      await holds(
        fc.asyncProperty(oddPath, fc.constantFrom("GET", "HEAD", "POST"), fc.boolean(), async (path, method, loggedIn) => {
          const where = `${method} ${path.slice(0, 120)} (${path.length} chars${loggedIn ? ", logged in" : ""})`;
          const headers: Record<string, string> = { Host: HOST, ...(loggedIn ? { Cookie: cookie } : {}) };
          if (method === "POST") headers["Content-Type"] = "application/x-www-form-urlencoded";
          const res = await raw(method, path, headers);
          edgeAnswer(path, res, where);
          // Refused or redirected before any router (where they cost Remix up to seconds of CPU each).
          const pathPart = path.split("?")[0];
          if (pathPart.length > MAX_PATH_LENGTH) expect(res.status, where).toBe(414);
          else if (/\/\/|\\/.test(pathPart)) expect([308, 414], where).toContain(res.status);
        }) as fc.IAsyncProperty<unknown[]>,
        120 * RUNS,
      );
      expect(changedTables(before, await fingerprint(), ["login_throttle", "sessions"])).toEqual([]);
      expect(logged).toEqual([]);
    },
    LONG,
  );

  it(
    "odd methods on every page and every API route: 405 with Allow (or the API's 404), never a 5xx or a logged stack",
    async () => {
      const before = await fingerprint();
      // The methods each API address really serves are not odd there (and would act, with the admin's token).
      const served = new Map<string, string[]>();
      for (const r of routes) served.set(fillPath(r.path, "1"), [...(served.get(fillPath(r.path, "1")) ?? []), r.method.toUpperCase()]);
      for (const method of ODD_METHODS) {
        for (const path of [...PAGES, ...served.keys()]) {
          if (served.get(path)?.includes(method)) continue;
          for (const auth of [{}, { Cookie: cookie }, bearer(adminToken)] as Array<Record<string, string>>) {
            const where = `${method} ${path} ${Object.keys(auth).join("")}`;
            const res = await raw(method, path, { Host: HOST, ...auth });
            edgeAnswer(path, res, where);
            if (!path.startsWith("/api/v1")) expect(res.status, where).toBe(405);
            if (res.status === 405) expect(res.headers.allow, where).toMatch(/^(GET|HEAD|POST|PUT|PATCH|DELETE)(, [A-Z]+)*$/);
          }
        }
      }
      expect(changedTables(before, await fingerprint())).toEqual([]);
      expect(logged).toEqual([]);
    },
    LONG,
  );

  it(
    "posts to every page action with bodies that are not forms (415), or broken forms: never a 5xx or a logged stack",
    async () => {
      const actions = [
        "/auth?index",
        "/auth/recovery",
        "/theme",
        "/logout",
        "/leadpanel",
        "/managers",
        "/users",
        "/payments",
        "/scripts",
        "/edit-statuses",
        "/leadTemplate",
        "/basesettings",
        "/getFilters",
        "/exportbase",
        "/loadedbases",
        "/loadedbases?index",
        "/loadedbases/filters/new",
        "/loadedbases/filters/1",
        "/importbase",
        "/importbase/upload",
        "/payments/balance/1",
        "/payments/pay/1",
        "/payments/history/1",
      ];
      const bodies: Array<[string | undefined, string]> = [
        ["application/json", '{"intent":"delete","id":1}'],
        ["text/plain", "intent=delete&id=1"],
        [undefined, "intent=delete&id=1"],
        ["multipart/form-data", "intent=delete"],
        ["application/xml", "<a/>"],
        ["garbage", "\u0000"],
        // A form type, but a body that is not one.
        ["multipart/form-data; boundary=zzz", "--zzz\r\nbroken"],
        ["multipart/form-data; boundary=zzz", "intent=delete&id=1"],
      ];
      const before = await fingerprint();
      for (const action of actions) {
        for (const path of [action, action.replace(/(\?|$)/, ".data$1")]) {
          for (const [type, body] of bodies) {
            // Logout reads no body: with the cookie it would end the session the other cases use.
            for (const auth of (action === "/logout" ? [{}] : [{}, { Cookie: cookie }]) as Array<Record<string, string>>) {
              const res = await raw("POST", path, { Host: HOST, ...auth, ...(type ? { "Content-Type": type } : {}) }, body);
              const where = `POST ${path} [${type}] ${Object.keys(auth).join("")}`;
              edgeAnswer(path, res, where);
              if (!type?.startsWith("multipart/form-data; boundary")) expect(res.status, where).toBe(415);
              if (res.status >= 400) expect(res.text, where).toMatch(CYRILLIC);
            }
          }
        }
      }
      expect(changedTables(before, await fingerprint())).toEqual([]);
      expect(logged).toEqual([]);
    },
    LONG,
  );

  it(
    "hostile redirect targets in the theme switch and the managers page never send a browser elsewhere",
    async () => {
      const hostile = fc.oneof(
        fc.constantFrom(
          "//evil.example",
          "/.//evil.example",
          "/..//evil.example",
          "/./\\evil.example",
          "/\\evil.example",
          "\\/evil.example",
          "/\t/evil.example",
          "/%2e//evil.example",
          "https://evil.example",
          "http:evil.example",
          "javascript:alert(1)",
          "/managers/..//evil.example",
          "/managers/../..//evil.example",
          "/managers\\..\\..\\/evil.example",
          "/managers@evil.example",
          "/" + "/".repeat(5000) + "evil.example",
          "/" + "a/".repeat(2000),
          "",
          " //evil.example",
          "/\u0000/evil.example",
        ),
        fc
          .tuple(
            fc.constantFrom("/", "/managers", "//", "\\", "/.", "/.."),
            fc.array(fc.constantFrom("/", "\\", ".", "..", "%2f", "%5c", "evil.example", "@", ":", "\t", "?", "#"), { maxLength: 8 }),
          )
          .map(([head, tail]) => head + tail.join("")),
        fc.string({ maxLength: 30, unit: "binary" }),
      );
      const before = await fingerprint();
      await holds(
        fc.asyncProperty(hostile, async (target) => {
          const form = { "Content-Type": "application/x-www-form-urlencoded", Host: HOST, Cookie: cookie };
          const theme = await raw("POST", "/theme", form, new URLSearchParams({ theme: "dark", redirectTo: target }).toString());
          expect(theme.status, `theme ${JSON.stringify(target)}`).toBe(302);
          staysHere(theme.headers.location, `theme ${JSON.stringify(target)}`);
          // The same harmless edit each time, answered without JavaScript by a redirect back.
          const body = new URLSearchParams({ intent: "updateRow", id: String(victim.id), displayName: "Жертва мусора", returnTo: target }).toString();
          const managers = await raw("POST", "/managers", form, body);
          expect(managers.status, `managers ${JSON.stringify(target)}`).toBe(302);
          staysHere(managers.headers.location, `managers ${JSON.stringify(target)}`);
        }) as fc.IAsyncProperty<unknown[]>,
        60 * RUNS,
      );
      expect(changedTables(before, await fingerprint(), ["users"])).toEqual([]);
      expect(logged).toEqual([]);
    },
    LONG,
  );
});
