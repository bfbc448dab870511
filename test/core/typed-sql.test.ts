// Rows typed at the boundary (issue 40): selectRows answers the rows its declared columns say, on either backend, and
// refuses a query that does not select them; a column read that the declaration does not have fails tsc.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "../../db/client";
import { columnsOf, selectList, selectRows } from "../../db/typed-sql";
import { createTestDb } from "../helpers/db";

let handle: DbHandle;
beforeAll(async () => {
  handle = await createTestDb();
});
afterAll(async () => {
  await handle?.close();
});

const COLUMNS = { name: sql<string>`d.name`, named: sql<boolean>`d.name <> ''`, seen: sql<number>`count(*) over ()::int` };

describe("selectRows", () => {
  it("reads each declared column under its name, from a SELECT and from a RETURNING list", async () => {
    const inserted = await selectRows(
      handle.db,
      { name: sql<string>`name` },
      (list) => sql`insert into databases (name) values ('typed') returning ${list}`,
    );
    expect(inserted).toEqual([{ name: "typed" }]);
    const rows = await selectRows(handle.db, COLUMNS, (list) => sql`select ${list} from databases d where d.name = 'typed'`);
    expect(rows).toEqual([{ name: "typed", named: true, seen: 1 }]);
    // @ts-expect-error -- a column the declaration does not have (a rename) fails tsc where it is read
    expect(rows[0].extra_labels).toBeUndefined();
  });

  it("reads the same columns back from a subquery that selected them (columnsOf)", async () => {
    const rows = await selectRows(
      handle.db,
      columnsOf("x", COLUMNS),
      (list) => sql`select ${list} from (select ${selectList(COLUMNS)} from databases d where d.name = 'typed') x`,
    );
    expect(rows).toEqual([{ name: "typed", named: true, seen: 1 }]);
  });

  it("refuses a query that leaves its declared columns out, before it runs", async () => {
    await expect(selectRows(handle.db, COLUMNS, () => sql`select name from databases`)).rejects.toThrow(/does not select its declared columns/);
  });
});
