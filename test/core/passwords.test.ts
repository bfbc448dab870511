import { describe, expect, it } from "vitest";
import { argon2Passwords } from "../../server/auth/password";
import { testPasswords } from "../helpers/passwords";

describe("password hashes", () => {
  it("are argon2id at the library's default costs in the app (64 MiB, 3 passes, 4 lanes; DESIGN §5)", async () => {
    const hash = await argon2Passwords.hash("Пароль-1");
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=65536,p=4,t=3\$/);
    expect(await argon2Passwords.verify(hash, "Пароль-1")).toBe(true);
    expect(await argon2Passwords.verify(hash, "Пароль-2")).toBe(false);
  });

  it("made at the suite's cheaper costs are checked by the app's own verify", async () => {
    const hash = await testPasswords.hash("Пароль-1");
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=4096,p=1,t=2\$/);
    expect(await argon2Passwords.verify(hash, "Пароль-1")).toBe(true);
    expect(await argon2Passwords.verify(hash, "Пароль-2")).toBe(false);
  });
});
