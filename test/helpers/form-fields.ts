/** Reading a page's form as a browser without JavaScript shows it: a field, its state and the message under it. */

export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The field named `name` in the page's HTML (the first input, textarea or select of that name, after `within`) and its message. */
export function field(html: string, name: string, within?: string) {
  const scope = within ? html.slice(html.indexOf(within)) : html;
  const tag = new RegExp(`<(?:input|textarea|select)\\b[^>]*\\bname="${escapeRegExp(name)}"[^>]*>`).exec(scope)?.[0];
  if (!tag) throw new Error(`no field ${name}`);
  const attr = (key: string) => new RegExp(`\\b${key}="([^"]*)"`).exec(tag)?.[1] ?? null;
  const described = (attr("aria-describedby") ?? "").split(" ").filter(Boolean);
  const message = described
    .map((id) => new RegExp(`<p\\b[^>]*\\bid="${escapeRegExp(id)}"[^>]*\\bdata-field-error=""[^>]*>([^<]*)</p>`).exec(html)?.[1])
    .find(Boolean);
  return { invalid: attr("aria-invalid") === "true", message: message ?? null, value: attr("value"), tag };
}
