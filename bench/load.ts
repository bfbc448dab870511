import fs from "node:fs";
import net from "node:net";
import { pathToFileURL } from "node:url";
import postgres from "postgres";
import WebSocket from "ws";
import { createDb } from "../db/client";
import { seed } from "../server/seed";
import { hashPassword } from "../server/auth/password";
import { putLeadTurn, startApp, type RunningApp } from "./app";
import { httpJson, median, percentile, PG_URL, printTable, withDatabase, type HttpAnswer, type Row } from "./lib";

/**
 * Issue 9, Load: managers as real clients of TWO app instances (`node --import tsx server/main.ts`, each its own
 * process and port) on one Postgres database made for the run (dropped at the end). A manager logs in (login,
 * password, access key → bearer token), opens the /realtime socket with it, reads his topics, chooses one, takes
 * a lead, then presses statuses; some presses are reports (card text), followed by proxy-application like the
 * lead panel. Admins read the statistics and the payouts, and watch the online list on their socket.
 *
 * Open loop: every manager acts about every 2 s (1.5–2.5 s apart) whatever the answers' speed. Closed loop:
 * growing groups of managers pressing with no pause; the highest rate without an error is the answer.
 * After the runs, SQL: no manager holds two contacts, no contact was pressed by two managers.
 *
 * `npm run bench -- load` (bench/run.ts) runs it as a script; test/load/load.test.ts calls runLoad() with a
 * small configuration. BENCH_NODE_ARGS adds Node/V8 flags to the instances (e.g. to compare GC settings).
 */

export interface LoadOptions {
  /** Contacts in the topic's bases (20 bases). */
  contacts: number;
  managers: number;
  /** Open-loop length. */
  seconds: number;
  admins?: number;
  /** Closed-loop steps: managers pressing with no pause, each step `closedSeconds` long. Empty: no closed loop. */
  closedSteps?: number[];
  closedSeconds?: number;
  /** The Postgres server the run's own database is created on (default: BENCH_DATABASE_URL or the local one). */
  serverUrl?: string;
  /** Progress lines (stderr in the bench). */
  log?: (line: string) => void;
}

export interface RouteStats {
  route: string;
  count: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface PhaseResult {
  name: string;
  managers: number;
  seconds: number;
  turns: number;
  turnsPerSecond: number;
  errors: number;
  routes: RouteStats[];
}

export interface LoadResult {
  phases: PhaseResult[];
  /** Errors of every kind over the whole run (HTTP status not expected, network, socket). */
  errors: number;
  errorSamples: string[];
  /** SQL after the run: managers holding more than one contact. */
  managersHoldingTwo: number;
  /** SQL after the run: contacts pressed by two different managers. */
  contactsPressedByTwo: number;
  /** SQL after the run: contacts on the do-not-call list that were held or pressed. */
  doNotCallHanded: number;
  /** Client side: a lead handed to a manager while another still held it. */
  handedTwice: number;
  /** Callbacks handed out during the run (scheduled in it, and seeded due or overdue ones). */
  callbacksHanded: number;
  /** SQL after the run: callbacks handed before their time, or to another manager within the grace time. */
  callbacksMisHanded: number;
  /** RSS of each instance (MB): when ready, after the logins, after the open loop, at the end. */
  rss: Array<{
    instance: string;
    readyMb: number;
    warmMb: number;
    openMb: number;
    endMb: number;
    /** Heap in use after the latest full collection (--trace-gc), after the open loop and at the end. */
    liveOpenMb: number;
    liveEndMb: number;
  }>;
  /** The highest closed-loop rate without an error (turns/s), if a closed loop ran. */
  bestClosedRate: number | null;
}

const PASSWORD = "Load-password-1";
const ADMIN = { login: "loadadmin", password: "Load-admin-password-1", accessKey: "LOADADMINKEY0001" };
const REWORK_STATUS = "Перезвонить";
const PLAIN_STATUSES = ["Отказ", "Недозвон", "Занято", REWORK_STATUS];
const REPORT_STATUS = "Заявка";
/** Issue 18: a status that asks for a callback time; the load schedules callbacks a few seconds ahead with it. */
const CALLBACK_STATUS = "Перезвон по времени";
const CALLBACK_AHEAD_MS = 3000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A --trace-gc line: the isolate, and for a full collection (Mark-Compact) the heap in use after it, in MB. */
const GC_LINE = /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: (?:Mark-Compact(?: \(reduce\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \(|\S)/;

function rssMb(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    return kb / 1024;
  } catch {
    return NaN;
  }
}

/** Runs `fn` over `items` with at most `limit` at once. */
async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

/** Latencies and errors per route for one phase. */
class Recorder {
  latencies = new Map<string, number[]>();
  errors = new Map<string, number>();
  turns = 0;
  constructor(private readonly onError: (text: string) => void) {}
  ok(route: string, ms: number) {
    let list = this.latencies.get(route);
    if (!list) this.latencies.set(route, (list = []));
    list.push(ms);
  }
  fail(route: string, text: string) {
    this.errors.set(route, (this.errors.get(route) ?? 0) + 1);
    this.onError(`${route}: ${text}`);
  }
  summary(): RouteStats[] {
    const routes = [...new Set([...this.latencies.keys(), ...this.errors.keys()])].sort();
    return routes.map((route) => {
      const list = this.latencies.get(route) ?? [];
      return { route, count: list.length, p50: median(list), p99: percentile(list, 99), errors: this.errors.get(route) ?? 0 };
    });
  }
}

// --- The database ----------------------------------------------------------------------------------------------

type UserRow = { id: number; login: string; access_key: string };

interface LoadWorld {
  filterId: number;
  managers: UserRow[];
  admins: UserRow[];
}

/**
 * The run's database, migrated and seeded here so that the two instances start on a ready schema: 20 bases of
 * contacts (every 23rd number on the do-not-call list), the managers and admins, one topic, and callbacks.
 */
async function seedLoadWorld(url: string, sql: postgres.Sql, options: LoadOptions, adminCount: number): Promise<LoadWorld> {
  const handle = await createDb({ databaseUrl: url, poolSize: 2 });
  await handle.migrate();
  await seed(handle.db, ADMIN);
  await handle.close();
  const perBase = Math.ceil(options.contacts / 20);
  await sql`insert into databases (name, contacts_count) select 'База ' || g, ${perBase} from generate_series(1, 20) g`;
  await sql.unsafe(`
    insert into contacts (database_id, name, phone, phone_key, city, address)
    select 1 + (g % 20), 'Клиент ' || g, '0' || (500000000 + g)::text, '380' || (500000000 + g)::text, 'Киев', 'ул. Шевченко, ' || g
    from generate_series(1, ${options.contacts}) g order by 1 + (g % 20), g`);
  // Issue 18: every 23rd contact's number is on the do-not-call list; none of them may be handed out.
  await sql`insert into do_not_call (phone_key, phone) select phone_key, phone from contacts where id % 23 = 0`;
  // DESIGN §10: claimed rows linger in the partial index until VACUUM; autovacuum runs often and without delay.
  await sql.unsafe(
    "alter table contacts set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000, autovacuum_vacuum_cost_delay = 0)",
  );
  await sql.unsafe("vacuum analyze contacts");
  // The seeding wrote a few hundred MB: flush it now, not in a checkpoint in the middle of the measured runs.
  await sql.unsafe("checkpoint");
  await sql`update settings set rate_with_passport_cents = 1500, rate_without_passport_cents = 700 where id = 1`;
  const hash = await hashPassword(PASSWORD);
  const managers = await sql<UserRow[]>`
    insert into users (login, password_hash, password_hint, access_key, display_name)
    select 'load' || g, ${hash}, ${PASSWORD.slice(0, 5)}, 'LOADKEY' || lpad(g::text, 9, '0'), 'Менеджер ' || g
    from generate_series(1, ${options.managers}) g returning id, login, access_key`;
  const admins = await sql<UserRow[]>`
    insert into users (login, password_hash, password_hint, access_key, display_name, is_admin)
    select 'loadadmin' || g, ${hash}, ${PASSWORD.slice(0, 5)}, 'LOADADM' || lpad(g::text, 9, '0'), 'Админ ' || g, true
    from generate_series(1, ${adminCount}) g returning id, login, access_key`;
  const [{ id: filterId }] = await sql<
    { id: number }[]
  >`insert into filters (name, is_active, calls_from, calls_until) values ('Кредиты', true, '00:00', '00:00') returning id`;
  await sql`insert into filter_databases (filter_id, database_id) select ${filterId}, id from databases`;
  await sql`insert into filter_statuses (filter_id, status_id) select ${filterId}, id from statuses where text = ${REWORK_STATUS}`;
  await sql`insert into filter_managers (filter_id, user_id) select ${filterId}, id from users where login like 'load%' and not is_admin`;
  // Callbacks in the mix (issue 18): per manager one due callback (only his) and one overdue past the grace
  // (anyone's), on contacts at the end of the bases; the presses schedule more, due a few seconds later.
  const [{ id: callbackStatusId }] = await sql<{ id: number }[]>`
    insert into statuses (text, button_text, color, asks_callback, sort_order) values (${CALLBACK_STATUS}, ${CALLBACK_STATUS}, '#0ea5e9', true, 50)
    returning id`;
  await sql`
    with m as (select id, row_number() over (order by id) - 1 as n from users where login like 'load%' and not is_admin),
    picked as (select id, database_id, row_number() over (order by id desc) - 1 as n from contacts order by id desc limit ${options.managers * 2}),
    marked as (update contacts set status_id = ${callbackStatusId}, status_at = now() - interval '1 hour' where id in (select id from picked))
    insert into callbacks (contact_id, database_id, user_id, filter_id, status_text, due_at)
    select p.id, p.database_id, m.id, ${filterId}, ${CALLBACK_STATUS},
      case when p.n % 2 = 0 then now() - interval '1 minute' else now() - interval '1 hour' end
    from picked p join m on m.n = p.n / 2`;
  return { filterId, managers, admins };
}

type AfterRun = Pick<LoadResult, "managersHoldingTwo" | "contactsPressedByTwo" | "doNotCallHanded" | "callbacksHanded" | "callbacksMisHanded">;

/** What must never have happened, read in SQL after the run. */
async function checkAfterRun(sql: postgres.Sql): Promise<AfterRun> {
  const [check] = await sql<
    { holdingTwo: number; pressedByTwo: number; doNotCallHanded: number; callbacksHanded: number; callbacksMisHanded: number }[]
  >`
    select
      (select count(*) from contacts c where exists (select 1 from do_not_call d where d.phone_key = c.phone_key)
         and (c.held_by is not null or exists (select 1 from lead_events e where e.contact_id = c.id)))::int as "doNotCallHanded",
      (select count(*) from callbacks where handed_at is not null)::int as "callbacksHanded",
      (select count(*) from callbacks where handed_at < due_at
         or (handed_to <> user_id and handed_at < due_at + make_interval(mins => (select callback_grace_minutes from settings where id = 1))))::int
        as "callbacksMisHanded",
      (select count(*) from (select held_by from contacts where held_by is not null group by held_by having count(*) > 1) x)::int as "holdingTwo",
      (select count(*) from (select contact_id from lead_events group by contact_id having count(distinct user_id) > 1) y)::int as "pressedByTwo"`;
  return {
    managersHoldingTwo: check.holdingTwo,
    contactsPressedByTwo: check.pressedByTwo,
    doNotCallHanded: check.doNotCallHanded,
    callbacksHanded: check.callbacksHanded,
    callbacksMisHanded: check.callbacksMisHanded,
  };
}

// --- The instances ---------------------------------------------------------------------------------------------

interface Instance {
  name: string;
  api: string;
  wsUrl: string;
  app: RunningApp;
  output: string[];
  /** Heap in use after the latest full collection (MB; the largest isolate), NaN before the first. */
  liveHeapMb: () => number;
}

async function startInstance(name: string, port: number, databaseUrl: string): Promise<Instance> {
  const output: string[] = [];
  const liveByIsolate = new Map<string, number>();
  const keep = (line: string) => {
    const gc = GC_LINE.exec(line);
    if (gc) {
      if (gc[2]) liveByIsolate.set(gc[1], Number(gc[2]));
      return;
    }
    output.push(`${line}\n`);
    if (output.length > 200) output.shift();
  };
  let app: RunningApp;
  try {
    app = await startApp({
      env: {
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: "warn",
        ADMIN_LOGIN: ADMIN.login,
        ADMIN_PASSWORD: ADMIN.password,
        ADMIN_ACCESS_KEY: ADMIN.accessKey,
        APPLICATION_FORWARD_URL: "",
      },
      // --trace-gc: the live heap after each full collection, which tells a leak from a heap V8 merely keeps grown.
      nodeArgs: ["--trace-gc"],
      port,
      onOutput: keep,
    });
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message}: ${output.join("")}`);
  }
  return {
    name,
    api: `${app.origin}/api/v1`,
    wsUrl: `${app.origin.replace(/^http/, "ws")}/realtime`,
    app,
    output,
    liveHeapMb: () => (liveByIsolate.size ? Math.max(...liveByIsolate.values()) : NaN),
  };
}

/** Free TCP ports for the two instances. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve) => {
          const s = net.createServer();
          s.listen(0, "127.0.0.1", () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** Each instance's RSS, in MB. */
const rssOf = (instances: Instance[]) => instances.map((i) => rssMb(i.app.pid));

// --- The people and what they do -------------------------------------------------------------------------------

interface Person {
  userId: number;
  login: string;
  accessKey: string;
  password: string;
  instance: Instance;
  token: string;
  socket: WebSocket | null;
  lead: { id: number; phone: string } | null;
  presses: number;
}

const toPeople = (rows: UserRow[], instances: Instance[]): Person[] =>
  rows.map((row, i) => ({
    userId: row.id,
    login: row.login,
    accessKey: row.access_key,
    password: PASSWORD,
    instance: instances[i % instances.length],
    token: "",
    socket: null,
    lead: null,
    presses: 0,
  }));

/**
 * What the managers and admins do, as the pages do it, and what it is counted by: every request goes through
 * `record` (latency per route; anything unexpected is an error), every lead handed out through `hand` (the
 * client-side check that nobody gets a lead another still holds).
 */
class Traffic {
  recorder: Recorder;
  /** Who holds which contact, as the answers say. */
  private holder = new Map<number, number>();
  handedTwice = 0;

  constructor(
    private readonly filterId: number,
    private readonly onError: (text: string) => void,
  ) {
    this.recorder = new Recorder(onError);
  }

  /** Ends a phase: its figures, and a fresh recorder for the next one. */
  finishPhase(name: string, managers: number, seconds: number): PhaseResult {
    const routes = this.recorder.summary();
    const errors = routes.reduce((sum, r) => sum + r.errors, 0);
    const phase = { name, managers, seconds, turns: this.recorder.turns, turnsPerSecond: this.recorder.turns / seconds, errors, routes };
    this.recorder = new Recorder(this.onError);
    return phase;
  }

  private async record(route: string, request: () => Promise<HttpAnswer>): Promise<{ status: number; body: unknown } | null> {
    const started = performance.now();
    try {
      const res = await request();
      const parsed = res.text ? JSON.parse(res.text) : null;
      if (res.status >= 400) {
        this.recorder.fail(route, `${res.status} ${res.text.slice(0, 200)}`);
        return null;
      }
      this.recorder.ok(route, performance.now() - started);
      return { status: res.status, body: parsed };
    } catch (error) {
      this.recorder.fail(route, `network: ${(error as Error).message}`);
      return null;
    }
  }

  /** A request of the person's to his instance's /api/v1, named by its route. */
  private call(person: Person, route: string, path: string, body?: unknown) {
    const method = route.slice(0, route.indexOf(" "));
    const headers: Record<string, string> = person.token ? { Authorization: `Bearer ${person.token}` } : {};
    return this.record(route, () => httpJson(`${person.instance.api}${path}`, { method, headers, body }));
  }

  private hand(person: Person, lead: unknown) {
    const l = lead && typeof lead === "object" ? (lead as { id: number; phone: string }) : null;
    person.lead = l ? { id: l.id, phone: l.phone } : null;
    if (!l) return;
    const other = this.holder.get(l.id);
    if (other !== undefined && other !== person.userId) {
      this.handedTwice++;
      this.onError(`contact ${l.id} handed to ${person.login} while user ${other} held it`);
    }
    this.holder.set(l.id, person.userId);
  }

  private openSocket(person: Person) {
    return new Promise<void>((resolve) => {
      const ws = new WebSocket(person.instance.wsUrl, { headers: { Authorization: `Bearer ${person.token}` } });
      let opened = false;
      ws.on("open", () => {
        opened = true;
        person.socket = ws;
        ws.send(JSON.stringify({ event: "updateStatus" }));
        resolve();
      });
      ws.on("message", (raw) => {
        try {
          const message = JSON.parse(raw.toString()) as { event?: string };
          if (message.event === "error" || message.event === "forceLogout") this.onError(`socket ${person.login}: ${raw.toString().slice(0, 200)}`);
        } catch {
          this.onError(`socket ${person.login}: not JSON`);
        }
      });
      ws.on("error", (error) => {
        this.onError(`socket ${person.login}: ${error.message}`);
        if (!opened) resolve();
      });
      ws.on("close", (code) => {
        if (person.socket === ws && code !== 1000 && code !== 1005) this.onError(`socket ${person.login} closed: ${code}`);
        if (!opened) resolve();
      });
    });
  }

  /** Login (argon2 on the instance), then the /realtime socket with the token. */
  async logIn(person: Person) {
    const res = await this.call(person, "POST /auth/login", "/auth/login", {
      login: person.login,
      password: person.password,
      accessKey: person.accessKey,
    });
    person.token = (res?.body as { access_token?: string } | null)?.access_token ?? "";
    if (person.token) await this.openSocket(person);
  }

  /** The lead panel's way in: topics, the choice, the first lead. */
  async takeTopic(person: Person) {
    const { filterId } = this;
    const topics = await this.call(person, "GET /filters", "/filters");
    const list = (topics?.body as Array<{ id: number }> | null) ?? [];
    const topic = list.find((t) => t.id === filterId);
    if (!topic) {
      if (topics) this.onError(`${person.login}: topic not offered`);
      return;
    }
    await this.call(person, "POST /filters/:filterId/:userId/:login", `/filters/${filterId}/${person.userId}/${person.login}`);
    const lead = await this.call(person, "GET /database/filtered-lead", `/database/filtered-lead?filterId=${filterId}&userId=${person.userId}`);
    if (lead) this.hand(person, lead.body);
  }

  /** One status press (a turn); every 10th is a report with a card, then proxy-application. */
  async press(person: Person) {
    if (!person.lead || !person.token) return false;
    const lead = person.lead;
    person.presses++;
    const report = person.presses % 10 === 0;
    const callback = !report && person.presses % 7 === 3;
    const statusText = report ? REPORT_STATUS : callback ? CALLBACK_STATUS : PLAIN_STATUSES[person.presses % PLAIN_STATUSES.length];
    const clientInfo = report ? `Сумма: ${1000 + person.presses}\nСрок: 12 месяцев` : "";
    const passport = report && person.presses % 20 === 0 ? "АВ123456" : "";
    const res = await this.record("PUT /status/update-and-get-lead", () =>
      putLeadTurn(person.instance.api, `Bearer ${person.token}`, {
        statusText,
        contactId: lead.id,
        userId: person.userId,
        passport,
        filterId: this.filterId,
        clientInfo,
        callbackAt: callback ? new Date(Date.now() + CALLBACK_AHEAD_MS).toISOString() : undefined,
      }),
    );
    if (!res) return false;
    this.recorder.turns++;
    if (this.holder.get(lead.id) === person.userId) this.holder.delete(lead.id);
    this.hand(person, res.body);
    if (person.socket?.readyState === WebSocket.OPEN) person.socket.send(JSON.stringify({ event: "updateStatus" }));
    if (report) {
      await this.call(person, "POST /status/proxy-application", "/status/proxy-application", {
        date: new Date().toISOString(),
        user: { id: person.userId, login: person.login },
        applicationText: clientInfo,
        phone: lead.phone,
      });
    }
    return true;
  }

  /** An admin's reads: statistics and payouts in turn. */
  async adminRead(person: Person, n: number) {
    if (!person.token) return;
    if (n % 2 === 0) await this.call(person, "GET /statistics", "/statistics");
    else await this.call(person, "GET /payments/stats", "/payments/stats");
  }
}

// --- The phases ------------------------------------------------------------------------------------------------

/** Logins (a few at a time, like people arriving), sockets, the admins' online list, topics, first leads. */
async function arrive(traffic: Traffic, people: Person[], admins: Person[]): Promise<PhaseResult> {
  const started = Date.now();
  await pool([...people, ...admins], 8, (p) => traffic.logIn(p));
  for (const a of admins) a.socket?.send(JSON.stringify({ event: "getUsersOnline" }));
  await pool(people, 32, (p) => traffic.takeTopic(p));
  return traffic.finishPhase("log in, topic, first lead", people.length, (Date.now() - started) / 1000);
}

/** Open loop: each manager presses about every 2 s; admins read statistics and payouts about every 2 s too. */
async function openLoop(traffic: Traffic, people: Person[], admins: Person[], seconds: number): Promise<PhaseResult> {
  const started = Date.now();
  const until = started + seconds * 1000;
  const actor = async (act: (n: number) => Promise<unknown>) => {
    await sleep(Math.random() * 2000);
    let n = 0;
    while (Date.now() < until) {
      const next = Date.now() + 1500 + Math.random() * 1000;
      await act(n++);
      await sleep(Math.max(0, Math.min(next, until) - Date.now()));
    }
  };
  await Promise.all([...people.map((p) => actor(() => traffic.press(p))), ...admins.map((a) => actor((n) => traffic.adminRead(a, n)))]);
  return traffic.finishPhase(`open loop, ${people.length} managers ~2 s apart`, people.length, (Date.now() - started) / 1000);
}

/** Closed loop: a group pressing with no pause (admins keep reading every 2 s). */
async function closedLoop(traffic: Traffic, group: Person[], admins: Person[], seconds: number): Promise<PhaseResult> {
  const started = Date.now();
  const until = started + seconds * 1000;
  await Promise.all([
    ...group.map(async (p) => {
      while (Date.now() < until && p.lead) if (!(await traffic.press(p))) await sleep(100);
    }),
    ...admins.map(async (a) => {
      for (let n = 0; Date.now() < until; n++) {
        await traffic.adminRead(a, n);
        await sleep(2000);
      }
    }),
  ]);
  return traffic.finishPhase(`closed loop, ${group.length} managers`, group.length, (Date.now() - started) / 1000);
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const log = options.log ?? (() => {});
  const adminCount = options.admins ?? 3;
  const closedSteps = options.closedSteps ?? [];
  const closedSeconds = options.closedSeconds ?? 15;
  const errorSamples: string[] = [];
  let errorTotal = 0;
  const onError = (text: string) => {
    errorTotal++;
    if (errorSamples.length < 20) errorSamples.push(text);
  };

  const serverUrl = options.serverUrl ?? PG_URL;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const name = `leaddesk_load_${process.pid}_${Date.now()}`;
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(serverUrl, name);
  const sql = postgres(url, { max: 4, onnotice: () => {} });
  const instances: Instance[] = [];
  const everyone: Person[] = [];
  try {
    log(`database ${name}: migrating, ${options.contacts} contacts, ${options.managers} managers`);
    const world = await seedLoadWorld(url, sql, options, adminCount);

    const ports = await freePorts(2);
    log(`starting two instances on ports ${ports.join(", ")}`);
    instances.push(...(await Promise.all(ports.map((port, i) => startInstance(`instance ${i + 1}`, port, url)))));
    const readyRss = rssOf(instances);

    const people = toPeople(world.managers, instances);
    const admins = toPeople(world.admins, instances);
    everyone.push(...people, ...admins);
    const traffic = new Traffic(world.filterId, onError);

    const phases: PhaseResult[] = [await arrive(traffic, people, admins)];
    log(`logged in and took a first lead in ${phases[0].seconds.toFixed(1)} s`);
    const warmRss = rssOf(instances);

    log(`open loop: ${people.length} managers, ~2 s apart, ${options.seconds} s`);
    phases.push(await openLoop(traffic, people, admins, options.seconds));
    const openRss = rssOf(instances);
    const openLive = instances.map((i) => i.liveHeapMb());

    // Growing groups: the highest rate without an error is the answer.
    let bestClosedRate: number | null = null;
    for (const size of closedSteps) {
      const group = people.slice(0, Math.min(size, people.length));
      log(`closed loop: ${group.length} managers, ${closedSeconds} s`);
      const phase = await closedLoop(traffic, group, admins, closedSeconds);
      phases.push(phase);
      if (phase.errors === 0 && (bestClosedRate === null || phase.turnsPerSecond > bestClosedRate)) bestClosedRate = phase.turnsPerSecond;
    }

    for (const p of everyone) p.socket?.close(1000);
    await sleep(500);
    const endRss = rssOf(instances);
    const endLive = instances.map((i) => i.liveHeapMb());

    const checked = await checkAfterRun(sql);
    for (const instance of instances) {
      if (!instance.app.running()) onError(`${instance.name} exited during the run: ${instance.output.join("").slice(-500)}`);
    }
    return {
      phases,
      errors: errorTotal,
      errorSamples,
      ...checked,
      handedTwice: traffic.handedTwice,
      rss: instances.map((i, n) => ({
        instance: i.name,
        readyMb: readyRss[n],
        warmMb: warmRss[n],
        openMb: openRss[n],
        endMb: endRss[n],
        liveOpenMb: openLive[n],
        liveEndMb: endLive[n],
      })),
      bestClosedRate,
    };
  } finally {
    for (const p of everyone) p.socket?.terminate();
    await Promise.all(instances.map((i) => i.app.stop()));
    await sql.end();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** The tables the bench prints. */
export function printLoad(result: LoadResult, options: LoadOptions) {
  const rows: Row[] = [];
  for (const phase of result.phases) {
    for (const r of phase.routes) {
      rows.push({
        phase: phase.name,
        route: r.route,
        requests: r.count,
        "p50 ms": r.p50,
        "p99 ms": r.p99,
        errors: r.errors,
      });
    }
  }
  printTable(`Load: two instances, one Postgres, ${options.contacts.toLocaleString("en-US")} contacts — latency per route (target: errors 0)`, rows);
  printTable(
    "Load: turns (status presses) per second (closed loop: the highest rate with no error is the answer)",
    result.phases.slice(1).map((p) => ({
      phase: p.name,
      seconds: p.seconds,
      turns: p.turns,
      "turns/s": p.turnsPerSecond,
      errors: p.errors,
    })),
  );
  printTable("Load: after the run (targets: 0, 0, 0, RSS flat)", [
    { check: "errors (all requests and sockets)", value: result.errors },
    { check: "managers holding two contacts (SQL)", value: result.managersHoldingTwo },
    { check: "contacts pressed by two managers (SQL)", value: result.contactsPressedByTwo },
    { check: "leads handed to a second manager while held (answers)", value: result.handedTwice },
    { check: "do-not-call contacts handed out (SQL)", value: result.doNotCallHanded },
    { check: "callbacks handed out (scheduled in the run, seeded due and overdue)", value: result.callbacksHanded },
    { check: "callbacks handed early or to another manager within the grace (SQL)", value: result.callbacksMisHanded },
    { check: "highest closed-loop turns/s with no error", value: result.bestClosedRate ?? "" },
    ...result.rss.map((r) => ({
      check: `${r.instance} RSS MB: ready / after logins / after open loop / end`,
      value: [r.readyMb, r.warmMb, r.openMb, r.endMb].map((mb) => mb.toFixed(0)).join(" / "),
    })),
    ...result.rss.map((r) => ({
      check: `${r.instance} heap in use after a full GC, MB: after open loop / end`,
      value: [r.liveOpenMb, r.liveEndMb].map((mb) => mb.toFixed(0)).join(" / "),
    })),
  ]);
  if (result.errorSamples.length) console.log(`\nFirst errors:\n${result.errorSamples.join("\n")}`);
}

async function main() {
  const options: LoadOptions = {
    contacts: Number(process.env.BENCH_CONTACTS || 1_000_000),
    managers: Number(process.env.BENCH_MANAGERS || 500),
    seconds: Number(process.env.BENCH_SECONDS || 60),
    admins: Number(process.env.BENCH_ADMINS || 3),
    closedSteps: (process.env.BENCH_CLOSED_STEPS ?? "25,50,100,200").split(",").filter(Boolean).map(Number),
    closedSeconds: Number(process.env.BENCH_CLOSED_SECONDS || 15),
    log: (line) => console.error(`[load] ${line}`),
  };
  const result = await runLoad(options);
  printLoad(result, options);
  if (
    result.errors ||
    result.managersHoldingTwo ||
    result.contactsPressedByTwo ||
    result.handedTwice ||
    result.doNotCallHanded ||
    result.callbacksMisHanded
  ) {
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
