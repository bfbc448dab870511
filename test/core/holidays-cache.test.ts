import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cachedHolidaysByZone } from "../../server/core/filters/holidays";

/**
 * The public holidays a new database is filled with are worked out once per data set and years (~3 s of CPU) and
 * kept in the temporary folder: the next start reads them. A file another user left there is not trusted.
 */
const YEARS = [2040, 2041, 2042];
const cacheFile = () => fs.readdirSync(os.tmpdir()).find((name) => name.startsWith("leaddesk-holidays-") && name.endsWith("-2040-2041-2042.json"));
const remove = () => {
  const name = cacheFile();
  if (name) fs.rmSync(path.join(os.tmpdir(), name), { force: true });
};

afterAll(remove);

describe("the holidays' file in the temporary folder", () => {
  it("is written by the first start and read by the next; one another user wrote is worked out again", async () => {
    remove();
    const first = await cachedHolidaysByZone(YEARS);
    expect([...(first.get("Europe/Moscow") ?? [])]).toEqual(expect.arrayContaining(["2041-01-01", "2041-05-09", "2041-06-12"]));
    const name = cacheFile();
    expect(name).toBeDefined();
    const file = path.join(os.tmpdir(), name!);

    // The next start reads the file: what it says is what the start gets.
    fs.writeFileSync(file, JSON.stringify({ "Europe/Moscow": ["2041-03-03"] }));
    expect([...((await cachedHolidaysByZone(YEARS)).get("Europe/Moscow") ?? [])]).toEqual(["2041-03-03"]);

    // Owned by someone else (the folder is everyone's): not read, worked out from the data set again.
    if (process.getuid?.() === 0) {
      fs.chownSync(file, 65534, 65534);
      const again = await cachedHolidaysByZone(YEARS);
      expect([...(again.get("Europe/Moscow") ?? [])]).toEqual(expect.arrayContaining(["2041-01-01", "2041-05-09"]));
      expect(again.get("Europe/Moscow")?.has("2041-03-03")).toBe(false);
    }
  });
});
