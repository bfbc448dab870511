import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { statuses, users } from "../../db/schema";
import { ADMIN, createUser, getPage, pageSessionCookie, postPageForm, useTestApp } from "../helpers/app";
import { createBase, createFilterRow } from "../helpers/leads";

/**
 * Issue 41 §10, /edit-statuses without JavaScript: «Добавить статус» is a draft until saved (nothing a manager
 * could see is written before), the list is in the lead panel's order (technical, normal, report last; decision
 * 085) and a flag switched changes no digit, and an emptied status text is refused under that field with the (empty) value kept.
 */
const t = useTestApp({ web: true });
let cookie: string;
beforeAll(async () => {
  cookie = await pageSessionCookie(t, ADMIN);
});

const count = async () => (await t.db.select().from(statuses)).length;

/** The visible rows' ids and the digits they show, in page order. */
function visibleRows(html: string) {
  const list = html.slice(html.indexOf('data-testid="visible-statuses"'), html.indexOf('data-testid="hidden-statuses"'));
  return [...list.matchAll(/data-status-id="(\d+)"[\s\S]*?data-testid="status-key">([\s\S]*?)<\/span>/g)].map((m) => ({
    id: Number(m[1]),
    key: /<kbd[^>]*>(\d)<\/kbd>/.exec(m[2]) ? Number(/<kbd[^>]*>(\d)<\/kbd>/.exec(m[2])![1]) : null,
  }));
}

/** The lead panel's buttons' status ids and digits, in page order. */
function panelButtons(html: string) {
  const row = html.slice(html.indexOf('data-testid="status-buttons"'));
  return [...row.slice(0, row.indexOf("</div>")).matchAll(/<button[^>]*value="(\d+)"[^>]*>/g)].map((m) => ({
    id: Number(m[1]),
    key: /aria-keyshortcuts="(\d)"/.exec(m[0]) ? Number(/aria-keyshortcuts="(\d)"/.exec(m[0])![1]) : null,
  }));
}

/** The row of a status (or the draft) up to its end. */
function rowOf(html: string, marker: string) {
  const row = html.slice(html.indexOf(marker));
  return row.slice(0, row.indexOf("</li>"));
}

describe("/edit-statuses without JavaScript (issue 41)", () => {
  it("«Добавить статус» is a draft form: nothing is saved until it is sent, and a refused one stays a draft", async () => {
    const before = await count();
    const page = await getPage(t, "/edit-statuses", cookie);
    // The button is a link to the draft: following it writes nothing.
    expect(page.text).toMatch(/<a[^>]*href="\/edit-statuses\?new"[^>]*>Добавить статус<\/a>/);
    const draft = await getPage(t, "/edit-statuses?new", cookie);
    expect(draft.status).toBe(200);
    const row = rowOf(draft.text, 'data-testid="status-draft"');
    expect(row).toMatch(/<input[^>]*name="text"[^>]*value="Новый статус"/);
    expect(row).toMatch(/<input[^>]*name="color"[^>]*value="#f59e0b"/);
    expect(row).toMatch(/<button[^>]*name="intent"[^>]*value="create"[^>]*>[\s\S]*Сохранить/);
    expect(await count()).toBe(before);

    // An emptied name: refused under the field, the draft kept (empty), nothing created.
    const empty = await postPageForm(t, "/edit-statuses?new", cookie, { intent: "create", text: "", buttonText: "", color: "#f59e0b", hotkey: "" });
    expect(empty.status).toBe(400);
    const refused = rowOf(empty.text, 'data-testid="status-draft"');
    const field = /<input[^>]*name="text"[^>]*>/.exec(refused)![0];
    expect(field).toContain('value=""');
    expect(field).toContain('aria-invalid="true"');
    expect(refused).toContain('data-testid="status-text-error">Введите текст статуса</span>');
    expect(await count()).toBe(before);

    const saved = await postPageForm(t, "/edit-statuses?new", cookie, {
      intent: "create",
      text: "Автоответчик",
      buttonText: "АО",
      color: "#1e3a8a",
      hotkey: "",
    });
    expect(saved.status).toBe(302);
    expect(saved.headers.location).toBe("/edit-statuses");
    const [created] = await t.db.select().from(statuses).where(eq(statuses.text, "Автоответчик"));
    expect(created).toMatchObject({ buttonText: "АО", color: "#1e3a8a", isHidden: false, hotkey: null });
    expect(await count()).toBe(before + 1);
  });

  it("lists the statuses in the lead panel's order (technical, normal, report last), and a flag switched keeps every digit", async () => {
    const manager = await createUser(t.db, { displayName: "Порядок Статусов" });
    const { base } = await createBase(t.db, { count: 2 });
    const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [base.id], statusIds: [] });
    await t.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, manager.user.id));
    const managerCookie = await pageSessionCookie(t, manager);
    const panelRow = async () => panelButtons((await getPage(t, "/leadpanel", managerCookie)).text);

    const rows = visibleRows((await getPage(t, "/edit-statuses", cookie)).text);
    expect(rows.length).toBeGreaterThanOrEqual(5);
    // SPEC /edit-statuses: technical first, then normal, report last; the panel's buttons the same, with the same
    // digits; «Заявка» is last and keeps 1 (decision 085).
    const byId = new Map((await t.db.select().from(statuses)).map((s) => [s.id, s]));
    const kinds = rows.map((row) => (byId.get(row.id)!.isTechnical ? 0 : byId.get(row.id)!.isReportStatus ? 2 : 1));
    expect(kinds).toEqual([...kinds].sort());
    expect(await panelRow()).toEqual(rows);
    expect(rows.find((row) => byId.get(row.id)!.text === "Заявка")?.key).toBe(1);

    // A normal status made a report one, then technical, then back: its row moves to its group, on the list and on
    // the panel alike, and no status's digit changes.
    const keys = new Map(rows.map((row) => [row.id, row.key]));
    const normal = [...byId.values()].find((s) => !s.isHidden && !s.isReportStatus && !s.isTechnical && s.text !== "Автоответчик")!;
    for (const intent of ["report", "technical", "report", "technical"]) {
      const toggled = await postPageForm(t, "/edit-statuses", cookie, { intent, id: String(normal.id) });
      expect(toggled.status).toBe(302);
      const after = visibleRows((await getPage(t, "/edit-statuses", cookie)).text);
      expect(new Map(after.map((row) => [row.id, row.key]))).toEqual(keys);
      expect(await panelRow()).toEqual(after);
    }
  });

  it("an emptied status text is refused under that field, the field left empty, not the saved text", async () => {
    const [status] = await t.db.select().from(statuses).where(eq(statuses.text, "Перезвонить"));
    const refused = await postPageForm(t, `/edit-statuses?edit=${status.id}`, cookie, {
      intent: "update",
      id: String(status.id),
      text: "",
      buttonText: status.buttonText,
      color: status.color,
      hotkey: "",
    });
    expect(refused.status).toBe(400);
    const row = rowOf(refused.text, `data-status-id="${status.id}"`);
    // The text field: empty, marked, and its message right under it (before the arrow to the button text).
    const field = /<input[^>]*name="text"[^>]*>/.exec(row)![0];
    expect(field).toContain('value=""');
    expect(field).toContain('aria-invalid="true"');
    expect(field).toContain(`aria-describedby="status-${status.id}-text-error"`);
    // It has the focus as the page opens (the browser scrolls to it: on a phone the row is far down).
    expect(field).toContain('autofocus=""');
    const underField = row.slice(row.indexOf(field), row.indexOf("→"));
    expect(underField).toContain(`id="status-${status.id}-text-error"`);
    expect(underField).toContain("Введите текст статуса");
    // No second copy of the message elsewhere in the row, and nothing saved.
    expect(row.split("Введите текст статуса")).toHaveLength(2);
    const [after] = await t.db.select().from(statuses).where(eq(statuses.id, status.id));
    expect(after.text).toBe("Перезвонить");
  });

  // Decision 078: SPEC's black-or-white text stays; where it reads under 4.5:1 the editor says so beside the preview.
  it("keeps SPEC's white text on pure red, and says beside the preview that it reads at 4.0:1 of the 4.5:1 needed", async () => {
    const [status] = await t.db.select().from(statuses).where(eq(statuses.text, "Перезвонить"));
    const saved = await postPageForm(t, "/edit-statuses", cookie, {
      intent: "update",
      id: String(status.id),
      text: status.text,
      buttonText: status.buttonText,
      color: "#ff0000",
      hotkey: "",
    });
    expect(saved.status).toBe(302);
    const red = rowOf((await getPage(t, "/edit-statuses", cookie)).text, `data-status-id="${status.id}"`);
    expect(red).toMatch(/style="background-color:#ff0000;color:#ffffff" data-testid="status-preview"/);
    expect(red).toContain("контраст 4,0:1, нужно 4,5:1");
    // A colour where the text reads well has no note.
    await t.db.update(statuses).set({ color: "#2563eb" }).where(eq(statuses.id, status.id));
    expect(rowOf((await getPage(t, "/edit-statuses", cookie)).text, `data-status-id="${status.id}"`)).not.toContain("контраст");
  });
});
