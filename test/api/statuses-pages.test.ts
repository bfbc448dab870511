import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { statuses } from "../../db/schema";
import { ADMIN, getPage, pageSessionCookie, postPageForm, useTestApp } from "../helpers/app";

/**
 * Issue 41 §10, /edit-statuses without JavaScript: «Добавить статус» is a draft until saved (nothing a manager
 * could see is written before), the list is in the lead panel's order (its digits 1, 2, 3, ...) and a flag
 * switched moves no row, and an emptied status text is refused under that field with the (empty) value kept.
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

  it("lists the statuses in the lead panel's order, and a flag switched moves no row and no digit", async () => {
    const rows = visibleRows((await getPage(t, "/edit-statuses", cookie)).text);
    expect(rows.length).toBeGreaterThanOrEqual(5);
    // The panel's buttons are in the order of their digits: so is the list.
    expect(rows.map((row) => row.key)).toEqual(rows.map((_, i) => (i < 9 ? i + 1 : null)));

    // A normal status made a report one (report statuses come first by default), then technical, then back.
    const normal = (await t.db.select().from(statuses)).find((s) => !s.isHidden && !s.isReportStatus && !s.isTechnical && s.text !== "Автоответчик")!;
    for (const intent of ["report", "technical", "report", "technical"]) {
      const toggled = await postPageForm(t, "/edit-statuses", cookie, { intent, id: String(normal.id) });
      expect(toggled.status).toBe(302);
      expect(visibleRows((await getPage(t, "/edit-statuses", cookie)).text)).toEqual(rows);
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
