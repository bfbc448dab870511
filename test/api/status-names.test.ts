import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createDb, queryRows, type DbHandle } from "../../db/client";
import { statuses } from "../../db/schema";
import { migrationJournal, migrationsUpTo } from "../../server/ops/migrations";
import { ADMIN, createUser, getPage, pageSessionCookie, postPageForm, useTestApp } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";
import { onPostgres } from "../helpers/backends";
import { createPgDatabase } from "../faults/server";

/**
 * Issue 41 §11 (decision 081): each status has one name. The panel and the bases table said «Недозвон / Отказ», the
 * dashboard, the topic form and the export «Не дозвонился / Не интересно»: the seed gave two statuses a text and a
 * different button text. Now a seeded status reads the same on every screen, an admin who renames one in the
 * editor (its button field left empty) renames its button too, and migration 0040 aligns the seeded pairs an
 * earlier seed left, unless an admin changed either name.
 */
const t = useTestApp({ web: true });

const SEEDED = ["Недозвон", "Занято", "Перезвонить", "Отказ", "Заявка"];
const tags = (html: string) => html.replace(/<[^>]+>/g, "");

/** Each checkbox's label in a list of `name` checkboxes, by the checkbox's value (a status id). */
function checkboxLabels(html: string, name: string): Record<string, string> {
  const pattern = new RegExp(`<label[^>]*>(<input[^>]*name="${name}"[^>]*>)([^<]*)`, "g");
  return Object.fromEntries([...html.matchAll(pattern)].map((m) => [/value="(\d+)"/.exec(m[1])![1], m[2].trim()]));
}

describe("a seeded status has one name on every screen", () => {
  it("the lead panel's buttons, the bases table's columns, the dashboard, the topic form and the export's list say the same", async () => {
    const s = await statusesByText(t.db);
    const ids = Object.fromEntries(Object.values(s).map((status) => [String(status.id), status]));
    const { base } = await createBase(t.db, { count: 6 });
    const manager = await createUser(t.db, { login: "one-name" });
    const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [base.id], statusIds: [] });
    await t.db.execute(sql`update users set getting_filter = ${filter.id} where id = ${manager.user.id}`);
    const cookie = await pageSessionCookie(t, manager);

    // The manager's buttons, and four presses of them (all but the report status) through the panel's own form.
    let panel = await getPage(t, "/leadpanel", cookie);
    const onButtons = Object.fromEntries(
      [...panel.text.matchAll(/<button[^>]*name="statusId"[^>]*value="(\d+)"[^>]*>([^<]*)/g)].map((m) => [m[1], m[2].trim()]),
    );
    expect(Object.values(onButtons).sort()).toEqual([...SEEDED].sort());
    for (const name of ["Недозвон", "Занято", "Перезвонить", "Отказ"]) {
      const contactId = /name="contactId" value="(\d+)"/.exec(panel.text)![1];
      const id = Object.keys(onButtons).find((key) => onButtons[key] === name)!;
      const pressed = await postPageForm(t, "/leadpanel", cookie, { intent: "status", statusId: id, contactId, passport: "" });
      expect(pressed.status, name).toBe(302);
      panel = await getPage(t, "/leadpanel", cookie);
    }

    const admin = await pageSessionCookie(t, ADMIN);
    // /loadedbases: one column per status button text (SPEC), with the base's counts under it.
    const bases = (await getPage(t, "/loadedbases", admin)).text;
    const columns = [...bases.matchAll(/data-testid="status-column"[^>]*>\s*<span[^>]*title="([^"]*)"/g)].map((m) => m[1]);
    expect(columns).toEqual(SEEDED.filter((name) => columns.includes(name)));
    expect([...columns].sort()).toEqual([...SEEDED].sort());
    // The dashboard's chart of today's presses: the recorded presses under the names the buttons said.
    const dashboard = (await getPage(t, "/", admin)).text;
    const legend = [...dashboard.matchAll(/data-testid="legend-item"[^>]*>([^]*?)<\/li>/g)].map((m) => tags(m[1]).replace(/\s*\d+%$/, ""));
    expect(legend.sort()).toEqual(["Занято", "Недозвон", "Отказ", "Перезвонить"]);
    // The topic form's «Статусы» and the export's list name each status as its button does.
    const topicForm = checkboxLabels((await getPage(t, "/loadedbases/filters/new", admin)).text, "statuses");
    const exportForm = checkboxLabels((await getPage(t, "/exportbase?dialog=create", admin)).text, "statusIds");
    for (const [id, status] of Object.entries(ids)) {
      expect({ status: status.text, topicForm: topicForm[id], export: exportForm[id] }).toEqual({
        status: onButtons[id],
        topicForm: onButtons[id],
        export: onButtons[id],
      });
      expect(status.buttonText).toBe(status.text);
    }
  });
});

describe("the status editor keeps one name", () => {
  it("explains the two texts, shows an equal button text as empty, and a rename with it empty renames the button", async () => {
    const admin = await pageSessionCookie(t, ADMIN);
    const [status] = await t.db.insert(statuses).values({ text: "Думает", buttonText: "Думает", color: "#0369a1", order: 60 }).returning();
    const editor = (await getPage(t, `/edit-statuses?edit=${status.id}`, admin)).text;
    expect(tags(editor)).toContain("Свой текст кнопки задавайте, только если там нужна нарочно более короткая надпись");
    const row = editor.slice(editor.indexOf(`data-status-id="${status.id}"`)).split("</li>")[0];
    const buttonField = /<input[^>]*name="buttonText"[^>]*>/.exec(row)![0];
    expect(buttonField).toContain('value=""');
    expect(buttonField).toContain('placeholder="как текст статуса"');

    const renamed = await postPageForm(t, "/edit-statuses", admin, {
      intent: "update",
      id: String(status.id),
      text: "Клиент думает",
      buttonText: "",
      color: "#0369a1",
      hotkey: "",
    });
    expect(renamed.status).toBe(302);
    const [saved] = (await t.db.select().from(statuses)).filter((row) => row.id === status.id);
    expect(saved).toMatchObject({ text: "Клиент думает", buttonText: "Клиент думает" });
    // A shorter button typed on purpose is kept: the status then has two names, as the editor says.
    const shorter = await postPageForm(t, "/edit-statuses", admin, {
      intent: "update",
      id: String(status.id),
      text: "Клиент думает",
      buttonText: "Думает",
      color: "#0369a1",
      hotkey: "",
    });
    expect(shorter.status).toBe(302);
    const [both] = (await t.db.select().from(statuses)).filter((row) => row.id === status.id);
    expect(both).toMatchObject({ text: "Клиент думает", buttonText: "Думает" });
    const again = (await getPage(t, `/edit-statuses?edit=${status.id}`, admin)).text;
    const againRow = again.slice(again.indexOf(`data-status-id="${status.id}"`)).split("</li>")[0];
    expect(/<input[^>]*name="buttonText"[^>]*>/.exec(againRow)![0]).toContain('value="Думает"');
  });
});

describe("migration 0040: the seeded pairs of an earlier seed get one name", { timeout: 120_000 }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  /** An empty database migrated up to the migration before 0040 (the app's schema of today's main). */
  async function databaseBefore(tag: string): Promise<DbHandle> {
    const position = migrationJournal().findIndex((entry) => entry.tag.endsWith("_one_name_per_seeded_status"));
    expect(position).toBeGreaterThan(0);
    const earlier = migrationsUpTo(position);
    cleanups.push(async () => earlier.remove());
    let handle: DbHandle;
    if (onPostgres) {
      const database = await createPgDatabase(`names_${tag}`, { empty: true });
      handle = await createDb({ databaseUrl: database.url, poolSize: 2 });
      cleanups.push(async () => {
        await handle.close();
        await database.drop();
      });
    } else {
      handle = await createDb({ dataDir: "memory://" });
      cleanups.push(() => handle.close());
    }
    await handle.migrate(earlier.folder);
    return handle;
  }

  const statusRows = (handle: DbHandle) =>
    queryRows<{ id: number; text: string; button: string }>(handle.db, sql`select id, text, button_text as button from statuses order by id`);
  const eventRows = (handle: DbHandle) =>
    queryRows<{ status: number; text: string; final: string | null }>(
      handle.db,
      sql`select status_id as status, status_text as text, final_status_text as final from lead_events order by id`,
    );
  /** The dashboard's and the statistics' rollup: presses per recorded name. */
  const rollup = async (handle: DbHandle) =>
    Object.fromEntries(
      (
        await queryRows<{ text: string; n: number }>(
          handle.db,
          sql`select status_text as text, sum(count)::int as n from lead_event_day_counts group by status_text having sum(count) > 0`,
        )
      ).map((row) => [row.text, Number(row.n)]),
    );

  it("renames an untouched pair (text and button of the old seed) and its presses, a callback and a rule's final status", async () => {
    const handle = await databaseBefore("seeded");
    const db = handle.db;
    await db.execute(sql`insert into statuses (text, button_text, color, is_technical, is_report_status, sort_order) values
      ('Не дозвонился', 'Недозвон', '#6b7280', true, false, 0), ('Занято', 'Занято', '#9ca3af', true, false, 1),
      ('Перезвонить', 'Перезвонить', '#2563eb', false, false, 2), ('Не интересно', 'Отказ', '#dc2626', false, false, 3),
      ('Заявка', 'Заявка', '#22c55e', false, true, 4)`);
    await db.execute(sql`insert into databases (name, contacts_count) values ('Старая база', 1)`);
    await db.execute(sql`insert into contacts (database_id, name, phone, phone_key) values (1, 'Иван', '+380631112233', '380631112233')`);
    await db.execute(sql`insert into lead_events (contact_id, database_id, status_id, status_text, is_technical, attempt, attempts_max, final_status_text) values
      (1, 1, 1, 'Не дозвонился', true, 1, 2, null), (1, 1, 1, 'Не дозвонился', true, 2, 2, 'Не интересно'),
      (1, 1, 4, 'Не интересно', false, null, null, null), (1, 1, 2, 'Занято', true, null, null, null)`);
    await db.execute(sql`insert into callbacks (contact_id, database_id, status_text, due_at) values (1, 1, 'Не интересно', now())`);
    expect(await rollup(handle)).toEqual({ "Не дозвонился": 2, "Не интересно": 1, Занято: 1 });

    await handle.migrate();

    expect((await statusRows(handle)).map((row) => [row.text, row.button])).toEqual(SEEDED.map((name) => [name, name]));
    expect(await eventRows(handle)).toEqual([
      { status: 1, text: "Недозвон", final: null },
      { status: 1, text: "Недозвон", final: "Отказ" },
      { status: 4, text: "Отказ", final: null },
      { status: 2, text: "Занято", final: null },
    ]);
    expect(await rollup(handle)).toEqual({ Недозвон: 2, Отказ: 1, Занято: 1 });
    expect(await queryRows(handle.db, sql`select status_text as text from callbacks`)).toEqual([{ text: "Отказ" }]);
  });

  it("leaves a status whose admin changed either name, and one whose name another status already has", async () => {
    const handle = await databaseBefore("edited");
    const db = handle.db;
    await db.execute(sql`insert into statuses (text, button_text, sort_order) values
      ('Нет ответа', 'Недозвон', 0), ('Не интересно', 'Не надо', 1), ('Не дозвонился', 'Недозвон', 2)`);
    await db.execute(sql`insert into lead_events (status_id, status_text) values (1, 'Нет ответа'), (2, 'Не интересно'), (3, 'Не дозвонился')`);
    const before = { statuses: await statusRows(handle), events: await eventRows(handle), rollup: await rollup(handle) };

    await handle.migrate();

    expect({ statuses: await statusRows(handle), events: await eventRows(handle), rollup: await rollup(handle) }).toEqual(before);
    expect(before.statuses.map((row) => [row.text, row.button])).toEqual([
      ["Нет ответа", "Недозвон"],
      ["Не интересно", "Не надо"],
      ["Не дозвонился", "Недозвон"],
    ]);
  });
});
