import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calls, listenSessions } from "../../db/schema";
import { ADMIN, createTestApp, createUser, pageSessionCookie, postPageForm, type TestApp } from "../helpers/app";
import { freePort } from "../helpers/ports";

/**
 * POST /listen (issue 28) without a media relay that answers: who may ask, and the Russian answers when listening
 * cannot start. The audio itself is proven through Kamailio and rtpengine in test/e2e/telephony-carrier.test.ts.
 */
let t: TestApp;
let adminCookie: string;
let managerCookie: string;
let manager: Awaited<ReturnType<typeof createUser>>;

const listen = (cookie: string | null, fields: Record<string, string>) => postPageForm(t, "/listen", cookie, fields);

beforeAll(async () => {
  // An rtpengine address where nothing listens: the relay never answers.
  t = await createTestApp({ web: true, env: { RTPENGINE_NG: `127.0.0.1:${await freePort()}` } });
  manager = await createUser(t.db, { login: "listened-manager" });
  adminCookie = await pageSessionCookie(t, ADMIN);
  managerCookie = await pageSessionCookie(t, manager);
});
afterAll(async () => {
  await t?.close();
});

describe("live listening's requests", () => {
  it("are for signed-in admins only", async () => {
    expect((await listen(null, { intent: "start", managerId: String(manager.user.id) })).status).toBe(401);
    const asManager = await listen(managerCookie, { intent: "start", managerId: String(manager.user.id) });
    expect(asManager.status).toBe(403);
    expect(asManager.body.message).toBe("Недостаточно прав для этого действия");
  });

  it("let only an admin whisper, and only the manager whispered to hear it", async () => {
    const offer = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n";
    const asManager = await listen(managerCookie, { intent: "whisper", managerId: String(manager.user.id), sdp: offer });
    expect(asManager.status).toBe(403);
    // Another user's whisper session, or one that does not exist, is not his to hear.
    const stranger = await listen(managerCookie, { intent: "hear", sessionId: "4242" });
    expect(stranger.status).toBe(400);
    expect(stranger.body.message).toBe("Подсказка уже завершена");
    expect((await listen(adminCookie, { intent: "whisper", managerId: String(manager.user.id) })).body.message).toBe("Нет предложения браузера");
  });

  it("say plainly when there is nobody or no call to listen to", async () => {
    expect((await listen(adminCookie, { intent: "start", managerId: "999999" })).body).toMatchObject({ message: "Менеджер не найден" });
    const idle = await listen(adminCookie, { intent: "start", managerId: String(manager.user.id) });
    expect(idle.status).toBe(409);
    expect(idle.body.message).toBe("Менеджер сейчас не разговаривает");
    // A call the browser reported but the proxy never relayed has no media in rtpengine to copy.
    await t.db.insert(calls).values({ userId: manager.user.id, number: "380671112233", direction: "out", answeredAt: new Date(), sipCallId: "browser-only@x" });
    expect((await listen(adminCookie, { intent: "start", managerId: String(manager.user.id) })).status).toBe(409);
    expect((await listen(adminCookie, { intent: "start", managerId: "abc" })).body.message).toBe("Неверный идентификатор");
    expect((await listen(adminCookie, { intent: "whisper" })).status).toBe(400);
  });

  it("answer 503 with the reason when rtpengine does not answer, and open no session", async () => {
    await t.db.insert(calls).values({ userId: manager.user.id, number: "380671112244", direction: "out", answeredAt: new Date(), sipCallId: "relayed@x", byProxy: true });
    const answer = await listen(adminCookie, { intent: "start", managerId: String(manager.user.id) });
    expect(answer.status).toBe(503);
    expect(answer.body.message).toBe("Прослушивание недоступно: rtpengine не отвечает");
    expect(await t.db.select().from(listenSessions).where(eq(listenSessions.managerId, manager.user.id))).toEqual([]);
    const stale = await listen(adminCookie, { intent: "stop", sessionId: "12345" });
    expect(stale.status).toBe(400);
    expect(stale.body.message).toBe("Прослушивание уже завершено");
  });

  it("is not set up without RTPENGINE_NG, and says which setting is missing", async () => {
    const bare = await createTestApp({ web: true });
    try {
      const m = await createUser(bare.db, { login: "unlistened-manager" });
      await bare.db.insert(calls).values({ userId: m.user.id, number: "380671112255", direction: "out", answeredAt: new Date(), sipCallId: "c@x", byProxy: true });
      const answer = await postPageForm(bare, "/listen", await pageSessionCookie(bare, ADMIN), { intent: "start", managerId: String(m.user.id) });
      expect(answer.status).toBe(503);
      expect(answer.body.message).toBe("Прослушивание недоступно: не задан адрес управления rtpengine (RTPENGINE_NG)");
    } finally {
      await bare.close();
    }
  });
});
