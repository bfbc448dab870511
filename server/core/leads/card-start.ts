import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { type RowOf, selectRows } from "../../../db/typed-sql";
import { type Actor, requireAdmin } from "../actor";
import { visibleBase } from "../bases/visible";
import { extraFieldLabel, MAPPING_LABELS } from "../bases/mapping";
import { displayPhone } from "../bases/phone";
import type { Lead } from "./allocation";
import { leadInTopic } from "./retry";

/** A field of the topic's card template (SPEC §3 templateFields), with the base column an admin tied it to. */
export interface CardField {
  label: string;
  type: "text" | "textarea";
  /** The base column this field starts with when its name differs from the field's (issue 41); absent: by name. */
  column?: string;
}

/** A card field as the lead panel and the API's lead turn give it: with the value it starts with. */
export interface CardFieldStart extends CardField {
  value: string;
}

/** A template's fields from its JSON text; anything malformed is dropped rather than breaking the panel. */
export function parseTemplateFields(json: string): CardField[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  return value
    .filter((f): f is { label: unknown; type?: unknown; column?: unknown } => typeof f === "object" && f !== null && "label" in f)
    .map((f) => {
      const column = typeof f.column === "string" ? f.column.trim() : "";
      return {
        label: String(f.label ?? "").trim(),
        type: f.type === "textarea" ? ("textarea" as const) : ("text" as const),
        ...(column ? { column } : {}),
      };
    })
    .filter((f) => f.label !== "");
}

/**
 * The CardFacts columns of contact `c` in base `d` and topic `f` (leadInTopic): the import's labels, the topic's
 * active template, the base's headers, the client's saved card. `savedNow`: the card the reading statement itself
 * saves for the contact (the turn's press), which its snapshot cannot see yet.
 */
export function cardColumns(savedNow?: SQL) {
  return {
    extra_labels: sql<string[] | null>`d.extra_labels`,
    card_template: sql<string | null>`(select t.template_fields from templates t where t.id = f.template_id and t.is_active)`,
    column_headers: sql<Record<string, string> | null>`d.column_headers`,
    age: sql<string | null>`c.age`,
    client_info: sql<string | null>`${savedNow ?? sql`c.client_info`}`,
  };
}

/** What cardColumns reads of a lead. */
export type CardFacts = RowOf<ReturnType<typeof cardColumns>>;

/** A name as compared: lower case, «ё» as «е», spaces collapsed, no trailing colon (case and spacing never matter). */
const comparable = (name: string) =>
  name
    .toLowerCase()
    .replace(/ё/g, "е")
    .replace(/\s+/g, " ")
    .replace(/[:\s]+$/, "")
    .trim();

/** Other names of the base's own columns, for bases whose header was not kept (imported before issue 41). */
const OTHER_NAMES: Record<string, string[]> = {
  name: ["имя", "фио клиента", "имя клиента", "клиент", "ф.и.о", "ф.и.о."],
  phone: ["телефон", "номер телефона", "телефон клиента"],
  city: ["город клиента"],
  address: ["адрес клиента"],
};

const OWN_FIELDS = ["name", "phone", "city", "address", "age"] as const;

/** The client's base row: each column's value, its header in the file and the names it goes by. */
function baseColumns(lead: Lead, facts: CardFacts, phoneRegion: string) {
  const headers = facts.column_headers ?? {};
  const values: Record<string, string> = {
    name: lead.name,
    phone: displayPhone(lead.phone, phoneRegion),
    city: lead.city,
    address: lead.address,
    age: facts.age ?? "",
  };
  const columns = OWN_FIELDS.map((field) => ({
    header: headers[field] ?? "",
    names: [MAPPING_LABELS[field], ...(OTHER_NAMES[field] ?? [])],
    value: values[field],
  }));
  ([1, 2, 3, 4] as const).forEach((n) => {
    const field = `additionalInfo${n}` as const;
    columns.push({ header: headers[field] || facts.extra_labels?.[n - 1] || "", names: [extraFieldLabel(n)], value: lead[field] });
  });
  return columns.map((column) => ({ header: comparable(column.header), names: column.names.map(comparable), value: column.value.trim() }));
}

/**
 * The card the client saved with his last press (SPEC §5's «label: value» lines, clientCardText), by the template's
 * labels: a line that starts with no label goes on with the field before it (a textarea's second line).
 */
function savedValues(text: string, labels: string[]): Map<string, string> {
  const saved = new Map<string, string>();
  let current: string | null = null;
  // Longest first: «Сумма долга: …» is not «Сумма»'s line.
  const byLength = [...new Set(labels)].sort((a, b) => b.length - a.length);
  for (const line of text.split("\n")) {
    const label = byLength.find((l) => line.startsWith(`${l}:`));
    if (label !== undefined) {
      current = label;
      saved.set(label, line.slice(label.length + 1).trim());
    } else if (current !== null) {
      saved.set(current, `${saved.get(current)}\n${line}`);
    }
  }
  return saved;
}

/**
 * Issue 41: the card's fields with the values they start with. A value the manager saved for this client (his last
 * press's card) always wins; else a field tied to a base column, or named as one (its header in the file, case and
 * spacing aside; or the column's own name: «ФИО», «Город», «Доп. поле 1»), starts with the client's value; else
 * empty. Managers stopped retyping the base's data into the card.
 */
export function cardFieldsOf(lead: Lead, facts: CardFacts, phoneRegion: string): CardFieldStart[] {
  const fields = parseTemplateFields(facts.card_template ?? "[]");
  if (fields.length === 0) return [];
  const columns = baseColumns(lead, facts, phoneRegion);
  const saved = savedValues(
    facts.client_info ?? "",
    fields.map((f) => f.label),
  );
  const columnValue = (name: string | undefined) => {
    const wanted = comparable(name ?? "");
    if (!wanted) return undefined;
    // A header of the file first: a base whose «Имя» column became an extra field is matched by that header.
    return (columns.find((c) => c.header === wanted) ?? columns.find((c) => c.names.includes(wanted)))?.value;
  };
  return fields.map((field) => ({
    ...field,
    value: saved.get(field.label) || (columnValue(field.column) ?? columnValue(field.label) ?? ""),
  }));
}

/**
 * The lead with its card (the API's lead turn: GET /database/filtered-lead, PUT /status/update-and-get-lead): from
 * the `known` facts the turn statement read with the lead, else in one query; the lead panel reads the same facts
 * with its view (leadViewColumns).
 */
export async function withCardFields<L extends Lead>(
  db: Db,
  filterId: number,
  lead: L,
  phoneRegion: string,
  known?: CardFacts | null,
): Promise<L & { cardFields: CardFieldStart[] }> {
  const [facts] = known
    ? [known]
    : await selectRows(db, cardColumns(), (list) => sql`select ${list} ${leadInTopic(sql`${lead.id}::bigint`, sql`${filterId}::int`)}`);
  return { ...lead, cardFields: facts ? cardFieldsOf(lead, facts, phoneRegion) : [] };
}

/**
 * The names a template field may be tied to (the editor's «Столбец базы» suggestions): every header the imported
 * bases kept, and the columns' own names (ФИО, Номер, Город, Адрес, Возраст, Доп. поле 1-4), which every base has.
 */
export async function baseColumnNames(db: Db, actor: Actor): Promise<string[]> {
  requireAdmin(actor);
  const rows = await selectRows(
    db,
    { header: sql<string>`btrim(h)` },
    (list) => sql`select distinct ${list} from (
        select e.value as h from databases d, jsonb_each_text(d.column_headers) e where ${visibleBase("d")}
        union all select unnest(d.extra_labels) from databases d where ${visibleBase("d")}) x
      where btrim(h) <> '' order by 1 limit 300`,
  );
  const own = [...OWN_FIELDS.map((field) => MAPPING_LABELS[field]), ...[1, 2, 3, 4].map(extraFieldLabel)];
  const seen = new Set(own.map(comparable));
  return [...own, ...rows.map((r) => r.header).filter((h) => !seen.has(comparable(h)) && seen.add(comparable(h)))];
}
