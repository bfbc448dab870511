/**
 * Application text as a person reads it: stored as typed ("Имя: Пётр" lines), or JSON-encoded by some clients
 * (a JSON string, or an object / list of label-value pairs). Always returns plain lines.
 */
export function readableApplicationText(text: string): string {
  const trimmed = text.trim();
  if (!/^["{[]/.test(trimmed)) return text;
  try {
    return fromJson(JSON.parse(trimmed));
  } catch {
    return text;
  }
}

function fromJson(value: unknown): string {
  if (typeof value === "string") return readableApplicationText(value);
  if (Array.isArray(value)) return value.map(fromJson).join("\n");
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    if ("label" in record && "value" in record) return `${String(record.label)}: ${String(record.value ?? "")}`;
    return Object.entries(record)
      .map(([key, v]) => `${key}: ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v ?? "")}`)
      .join("\n");
  }
  return String(value ?? "");
}
