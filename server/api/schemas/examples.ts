import { jsonSchemaTransform } from "fastify-type-provider-zod";
import * as z from "zod";

/**
 * Examples for the OpenAPI description (issue 44), made from the routes' own zod schemas, so that a body or an
 * answer is declared once and its example follows it. A schema (or any part of it) that carries its own
 * `.meta({ examples: [x] })` gives x; otherwise the walk below builds one: an object of its fields' examples, an
 * enum's first value, a number at its minimum (or 1), and for a string the first of a few plausible values (by its
 * format, then by its field's name: `phone`, `url`, `…At`, …) that its own checks accept. A part nothing plausible
 * fits (an `any`, a string only a pattern describes) gives no example, and test/api/openapi.test.ts names the
 * route; such a part then gets its `.meta({ examples })` where it is declared.
 */

type Schema = z.core.$ZodType;

/**
 * Tomorrow at 09:15 UTC, as of when the description is made: a moment every field's own checks accept whatever the
 * day (a callback's time must not be past and at most a year ahead: a fixed date became a wrong example the day
 * it passed).
 */
const today = new Date();
const ISO_TIME = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1, 9, 15)).toISOString();
const ISO_DATE = ISO_TIME.slice(0, 10);

/** Strings by format (zod's `z.email()`, `z.iso.datetime()` …). */
const BY_FORMAT: Record<string, string> = {
  email: "manager@example.com",
  url: "https://crm.example.com/hooks/leaddesk",
  datetime: ISO_TIME,
  date: ISO_DATE,
  time: "09:15:00",
  uuid: "0b9f6c1e-3f7a-4c9e-9a41-6d2f0e8b7c55",
  e164: "+380501234567",
};

/** Strings by the field's name, tried in order (the first its checks accept is taken). */
const BY_NAME: Array<[RegExp, string[]]> = [
  [/(phone|number)$/i, ["+380501234567", "380501234567"]],
  [/(url|href|link)$/i, ["https://crm.example.com/hooks/leaddesk"]],
  [/^from$|[a-z]From$/, ["09:00", ISO_TIME]],
  [/^until$|[a-z]Until$/, ["21:00", ISO_TIME]],
  [/^(at|date|since|lastSeen)$|[a-z](At|Since|Date|Time)$/, [ISO_TIME, ISO_DATE, "09:15"]],
  [/^(displayName|fullName|name|author|createdBy|manager|userName)$/, ["Иванова Мария"]],
  [/login/i, ["ivanova"]],
  [/password/i, ["Kf7-pass-2026"]],
  [/accessKey/i, ["KEY7F3A9C21B0D4"]],
  [/telegram/i, ["@ivanova"]],
  [/colou?r/i, ["#2563eb"]],
  [/(zone|timezone)$/i, ["Europe/Kyiv"]],
  [/city/i, ["Киев"]],
  [/address/i, ["ул. Крещатик, 1"]],
  [/secret/i, ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]],
  [/messageId/i, ["msg_2b5c0a4e9f7d4c1ab3e6f8d2c9a1b7e4"]],
  [/^message$/, ["Сохранено"]],
  [/(text|comment|info|description|note|reason)/i, ["Клиент просит перезвонить после обеда"]],
  [/status/i, ["Перезвонить"]],
];

const GENERIC_STRINGS = ["Пример", "1", "a"];

const fits = (schema: Schema, value: unknown) => z.safeParse(schema, value).success;

function stringExample(schema: Schema, key: string): string | undefined {
  const bag = schema._zod.bag as { format?: string };
  const candidates = [
    ...(bag.format && BY_FORMAT[bag.format] ? [BY_FORMAT[bag.format]] : []),
    ...BY_NAME.filter(([pattern]) => pattern.test(key)).flatMap(([, values]) => values),
    ...GENERIC_STRINGS,
  ];
  return candidates.find((value) => fits(schema, value));
}

/** A number field named as a moment (`processTime`): milliseconds since 1970, as such fields carry. */
const MOMENT_MS = Date.parse(ISO_TIME);

function numberExample(schema: Schema, key: string): number | undefined {
  const bag = schema._zod.bag as { minimum?: number; maximum?: number; exclusiveMinimum?: number };
  const candidates = [
    /[a-z](Time|At)$/.test(key) ? MOMENT_MS : undefined,
    1,
    bag.minimum,
    bag.exclusiveMinimum != null ? bag.exclusiveMinimum + 1 : undefined,
    0,
    bag.maximum,
  ];
  return candidates.filter((n): n is number => typeof n === "number" && Number.isFinite(n)).find((n) => fits(schema, n));
}

/** The example a schema declares for itself, if any (`.meta({ examples })`, or `example`). */
function declared(schema: Schema): { value: unknown } | null {
  const meta = z.globalRegistry.get(schema) as { examples?: unknown; example?: unknown } | undefined;
  if (Array.isArray(meta?.examples) && meta.examples.length > 0) return { value: meta.examples[0] };
  if (meta && "example" in meta && meta.example !== undefined) return { value: meta.example };
  return null;
}

/** An example of what `schema` accepts (a body) or gives (an answer); undefined when no plausible one is known. */
export function exampleOf(schema: Schema, key = "", depth = 0): unknown {
  const own = declared(schema);
  if (own) return own.value;
  if (depth > 12) return undefined;
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const inner = (part: unknown, at = key) => exampleOf(part as Schema, at, depth + 1);
  switch (def.type) {
    case "string":
      return stringExample(schema, key);
    case "number":
    case "int":
      return numberExample(schema, key);
    case "boolean":
      return true;
    case "null":
      return null;
    case "literal":
      return (def.values as unknown[])[0];
    case "enum":
      return Object.values(def.entries as Record<string, unknown>)[0];
    case "optional":
    case "nonoptional":
    case "readonly":
    case "catch":
      return inner(def.innerType);
    case "nullable": {
      const value = inner(def.innerType);
      return value === undefined ? null : value;
    }
    case "default":
    case "prefault": {
      const value = inner(def.innerType);
      return value === undefined ? def.defaultValue : value;
    }
    case "pipe": {
      // A transform's example is its input's (a body is sent as its input); a pipe into a narrower schema (an id
      // as digits or a number, then a whole number from 1) tries the narrower one's example when the input's fails.
      if ((def.in as Schema)._zod.def.type === "transform") return inner(def.out);
      const value = inner(def.in);
      if (value === undefined || fits(schema, value) || (def.out as Schema)._zod.def.type === "transform") return value;
      const narrower = inner(def.out);
      return narrower !== undefined && fits(schema, narrower) ? narrower : value;
    }
    case "lazy":
      return inner((def.getter as () => Schema)());
    case "array": {
      const item = inner(def.element, key.replace(/s$/, ""));
      if (item === undefined) return undefined;
      const min = (schema._zod.bag as { minimum?: number }).minimum ?? 1;
      return Array.from({ length: Math.max(1, min) }, () => item);
    }
    case "tuple": {
      const items = (def.items as Schema[]).map((part) => inner(part));
      return items.includes(undefined) ? undefined : items;
    }
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [name, part] of Object.entries(def.shape as Record<string, Schema>)) {
        const value = inner(part, name);
        if (value !== undefined) out[name] = value;
        else if (part._zod.optin !== "optional") return undefined;
      }
      return out;
    }
    case "record": {
      // Keyed by ids as text (a criterion's answers, a status's count) unless the key says otherwise.
      const name = fits(def.keyType as Schema, "1") ? "1" : inner(def.keyType, "id");
      const value = inner(def.valueType);
      return name === undefined || value === undefined ? undefined : { [String(name)]: value };
    }
    case "union": {
      // The first option that says something: a value before null or "" (which a union often allows as «none»).
      const values = (def.options as Schema[]).map((option) => inner(option)).filter((value) => value !== undefined);
      return values.find((value) => value !== null && value !== "") ?? values[0];
    }
    case "intersection": {
      const [left, right] = [inner(def.left), inner(def.right)];
      if (left === undefined || right === undefined) return undefined;
      return typeof left === "object" && typeof right === "object" ? { ...left, ...right } : left;
    }
    default:
      return undefined;
  }
}

/** The route's main answer: its lowest 2xx code, or null when it has none. */
export function mainAnswerCode(response: Record<string, unknown> | undefined): string | null {
  const codes = Object.keys(response ?? {})
    .filter((code) => /^2\d\d$/.test(code))
    .sort();
  return codes[0] ?? null;
}

/** Is this answer a JSON body (not a file, `z.any()`, nor nothing, `z.null()` of a 204)? */
export const answersJson = (schema: unknown): schema is Schema =>
  schema instanceof z.core.$ZodType && !["any", "unknown", "null", "void", "undefined"].includes(schema._zod.def.type);

/**
 * @fastify/swagger's transform: fastify-type-provider-zod's JSON Schema, with an example of the body and of the main
 * answer made from the same zod schemas (@fastify/swagger shows a schema's `examples` as the media's `example`).
 */
export const transformWithExamples: typeof jsonSchemaTransform = (document) => {
  const result = jsonSchemaTransform(document);
  const zod = document.schema as { body?: unknown; response?: Record<string, unknown> } | undefined;
  const json = result.schema as { hide?: boolean; body?: Record<string, unknown>; response?: Record<string, Record<string, unknown>> };
  if (!zod || json.hide) return result;
  if (json.body && zod.body instanceof z.core.$ZodType) {
    const example = exampleOf(zod.body);
    if (example !== undefined) json.body.examples = [example];
  }
  const code = mainAnswerCode(zod.response);
  if (code && json.response?.[code] && answersJson(zod.response![code])) {
    const example = exampleOf(zod.response![code]);
    if (example !== undefined) json.response[code].examples = [example];
  }
  return result;
};
