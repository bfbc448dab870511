import { sql } from "drizzle-orm";

/**
 * The fields a base gives each contact (its id, name, phone and the rest as imported), as raw SQL declares them
 * (db/typed-sql.ts) for a contacts row `c`: the search's hits and the export's rows read them alike.
 */
export const CONTACT_FIELDS = {
  id: sql<string | number>`c.id`,
  name: sql<string>`c.name`,
  phone: sql<string>`c.phone`,
  city: sql<string>`c.city`,
  address: sql<string>`c.address`,
  age: sql<string>`c.age`,
  additional_info1: sql<string>`c.additional_info1`,
  additional_info2: sql<string>`c.additional_info2`,
  additional_info3: sql<string>`c.additional_info3`,
  additional_info4: sql<string>`c.additional_info4`,
};
