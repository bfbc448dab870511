/**
 * A streaming XML tokenizer for the parts of an .xlsx: elements with their attributes, closing tags and text,
 * fed as string chunks. It takes about 0.6 of saxes' time on a sheet (decision 016): a sheet is millions of tiny
 * elements, and saxes walks every character through a state machine where this jumps between `<`, `>`, quotes
 * and `&` with indexOf. Spreadsheet parts use no DTD, so a DOCTYPE is refused rather than read; comments,
 * processing instructions and CDATA are understood. A document that is not well formed (a tag left open, a
 * closing tag that does not match, an unknown entity, a truncated tag) throws, as saxes did.
 */
export interface XmlHandlers {
  /** An element opens; `name` is as written (with any prefix), values have their entities decoded. */
  open?: (name: string, attributes: Record<string, string>) => void;
  close?: (name: string) => void;
  /** Text between tags (entities decoded) and CDATA content. */
  text?: (text: string) => void;
}

export class XmlSyntaxError extends Error {}

const PREDEFINED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&([^;&]*);?/g, (whole, body: string) => {
    if (!whole.endsWith(";")) throw new XmlSyntaxError(`unterminated entity "${whole.slice(0, 20)}"`);
    const known = PREDEFINED[body];
    if (known) return known;
    const code = /^#x[0-9a-f]+$/i.test(body) ? parseInt(body.slice(2), 16) : /^#\d+$/.test(body) ? Number(body.slice(1)) : NaN;
    if (!Number.isInteger(code) || code < 0 || code > 0x10ffff) throw new XmlSyntaxError(`unknown entity "${whole}"`);
    return String.fromCodePoint(code);
  });
}

const CDATA = "<![CDATA[";
/** Shared by every element without attributes (handlers only read them). */
const NO_ATTRIBUTES: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** XML reads every CR LF and lone CR as LF. */
const lineEnds = (text: string) => (text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text);

const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13;

/** Where a name ends: at a space, `/`, `>` or `=`. */
function nameEnd(buffer: string, from: number): number {
  let i = from;
  for (; i < buffer.length; i++) {
    const code = buffer.charCodeAt(i);
    if (isSpace(code) || code === 47 /* / */ || code === 62 /* > */ || code === 61 /* = */) break;
  }
  return i;
}

export class XmlStream {
  /** Input not yet tokenized: an incomplete tag or text whose closing `<` has not arrived. */
  private pending = "";
  private readonly open: string[] = [];
  private seenRoot = false;

  constructor(private readonly handlers: XmlHandlers) {}

  write(chunk: string): void {
    const buffer = this.pending ? this.pending + chunk : chunk;
    this.pending = buffer.slice(this.tokenize(buffer));
  }

  /** The end of the document: anything left open or unfinished is an error. */
  close(): void {
    if (this.pending.trim()) throw new XmlSyntaxError("unexpected end of document");
    if (this.open.length) throw new XmlSyntaxError(`unclosed element <${this.open[this.open.length - 1]}>`);
    if (!this.seenRoot) throw new XmlSyntaxError("no root element");
  }

  /** Emits every complete token in `buffer`; returns where the unfinished rest starts. */
  private tokenize(buffer: string): number {
    const { handlers } = this;
    let pos = 0;
    while (pos < buffer.length) {
      const lt = buffer.indexOf("<", pos);
      if (lt < 0) return pos; // text whose end has not arrived yet
      if (lt > pos) this.text(buffer.slice(pos, lt));
      const next = buffer.charCodeAt(lt + 1);
      if (Number.isNaN(next)) return lt;
      if (next === 47 /* / */) {
        const gt = buffer.indexOf(">", lt + 2);
        if (gt < 0) return lt;
        const name = buffer.slice(lt + 2, gt).trimEnd();
        const expected = this.open.pop();
        if (name !== expected) throw new XmlSyntaxError(`closing tag </${name}> does not match <${expected ?? ""}>`);
        handlers.close?.(name);
        pos = gt + 1;
      } else if (next === 63 /* ? */) {
        const end = buffer.indexOf("?>", lt + 2);
        if (end < 0) return lt;
        pos = end + 2;
      } else if (next === 33 /* ! */) {
        if (buffer.startsWith("<!--", lt)) {
          const end = buffer.indexOf("-->", lt + 4);
          if (end < 0) return lt;
          pos = end + 3;
        } else if (buffer.startsWith(CDATA, lt)) {
          const end = buffer.indexOf("]]>", lt + 9);
          if (end < 0) return lt;
          if (!this.open.length) throw new XmlSyntaxError("CDATA outside the root element");
          handlers.text?.(lineEnds(buffer.slice(lt + 9, end)));
          pos = end + 3;
        } else if (buffer.length - lt < 9 && (CDATA.startsWith(buffer.slice(lt)) || "<!--".startsWith(buffer.slice(lt)))) {
          return lt; // cut off before it can be told apart
        } else {
          throw new XmlSyntaxError("a DOCTYPE or declaration is not allowed in a spreadsheet part");
        }
      } else {
        const end = this.openTag(buffer, lt);
        if (end < 0) return lt;
        pos = end;
      }
    }
    return pos;
  }

  private text(raw: string) {
    if (!this.open.length) {
      if (raw.trim()) throw new XmlSyntaxError("text outside the root element");
      return;
    }
    this.handlers.text?.(decodeEntities(lineEnds(raw)));
  }

  /** Reads `<name a="1" b='2'>` or `<name/>` at `lt`; returns the index after it, or -1 when it is cut off. */
  private openTag(buffer: string, lt: number): number {
    const nameStop = nameEnd(buffer, lt + 1);
    if (nameStop >= buffer.length) return -1;
    const name = buffer.slice(lt + 1, nameStop);
    if (!name) throw new XmlSyntaxError("an element without a name");
    let attributes = NO_ATTRIBUTES;
    let i = nameStop;
    for (;;) {
      while (i < buffer.length && isSpace(buffer.charCodeAt(i))) i++;
      if (i >= buffer.length) return -1;
      const code = buffer.charCodeAt(i);
      if (code === 62 /* > */ || code === 47 /* / */) break;
      const keyEnd = nameEnd(buffer, i);
      let eq = keyEnd;
      while (eq < buffer.length && isSpace(buffer.charCodeAt(eq))) eq++;
      let quote = eq + 1;
      while (quote < buffer.length && isSpace(buffer.charCodeAt(quote))) quote++;
      if (quote >= buffer.length) return -1;
      const mark = buffer[quote];
      if (keyEnd === i || buffer[eq] !== "=" || (mark !== '"' && mark !== "'")) {
        throw new XmlSyntaxError(`bad attribute in <${name}>`);
      }
      const close = buffer.indexOf(mark, quote + 1);
      if (close < 0) return -1;
      const value = buffer.slice(quote + 1, close);
      if (value.includes("<")) throw new XmlSyntaxError(`"<" in an attribute of <${name}>`);
      if (attributes === NO_ATTRIBUTES) attributes = {};
      attributes[buffer.slice(i, keyEnd)] = decodeEntities(value);
      i = close + 1;
      if (i < buffer.length && !isSpace(buffer.charCodeAt(i)) && buffer[i] !== ">" && buffer[i] !== "/") {
        throw new XmlSyntaxError(`no space between attributes of <${name}>`);
      }
    }
    const selfClosing = buffer.charCodeAt(i) === 47;
    if (selfClosing) {
      if (i + 1 >= buffer.length) return -1;
      if (buffer[i + 1] !== ">") throw new XmlSyntaxError(`bad end of <${name}>`);
    }
    if (!this.open.length) {
      if (this.seenRoot) throw new XmlSyntaxError("a second root element");
      this.seenRoot = true;
    }
    this.handlers.open?.(name, attributes);
    if (selfClosing) {
      this.handlers.close?.(name);
      return i + 2;
    }
    this.open.push(name);
    return i + 1;
  }
}
