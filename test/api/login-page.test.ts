import { describe, expect, it } from "vitest";
import { ADMIN, formBody, useTestApp } from "../helpers/app";

const t = useTestApp({ web: true });
const form = formBody;

describe("the login page without JavaScript (issue 17)", () => {
  it("a wrong password answers the message and keeps the login typed, never the secrets", async () => {
    const res = await t.request
      .post("/auth?index")
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send(form({ login: ADMIN.login, password: "не-тот-пароль", accessKey: ADMIN.accessKey }));
    expect(res.status).toBe(401);
    expect(res.text).toContain("Неверный логин или пароль");
    const loginInput = /<input[^>]*id="login"[^>]*>/.exec(res.text)?.[0] ?? "";
    expect(loginInput).toContain(`value="${ADMIN.login}"`);
    expect(res.text).not.toContain("не-тот-пароль");
    expect(res.text).not.toContain(ADMIN.accessKey);
  });
});

describe("/loadedbases words (issue 17)", () => {
  it("is headed «Мои базы» like the menu, and adds a «тематика», not a «фильтр»", async () => {
    const res = await t.request.post("/auth?index").set("Content-Type", "application/x-www-form-urlencoded").send(form(ADMIN));
    const cookie = ([] as string[])
      .concat(res.headers["set-cookie"] ?? [])
      .find((c) => c.startsWith("session="))!
      .split(";")[0];
    const page = await t.request.get("/loadedbases").set("Cookie", cookie).set("Accept-Encoding", "identity");
    expect(page.status).toBe(200);
    expect(/<h1[^>]*>([^<]*)<\/h1>/.exec(page.text)?.[1]).toBe("Мои базы");
    expect(page.text).toContain("Добавить тематику");
    expect(page.text).toContain("Тематик пока нет. Добавьте первую.");
    expect(page.text).not.toContain("фильтр");
  });
});
