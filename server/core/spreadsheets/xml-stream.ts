import { SaxesParser } from "saxes";

/**
 * The streaming XML parser under the .xlsx and .ods readers: saxes (a conforming, maintained SAX parser), fed
 * string chunks, seen through the three events the readers use. It replaced our own tokenizer (decision 016) in
 * decision 061. Spreadsheet parts use no DTD, so a DOCTYPE is refused rather than read (it is where entity tricks
 * live; saxes would not expand its entities either). A document that is not well formed (a tag left open, a closing
 * tag that does not match, an unknown entity, a truncated tag, text outside the root) throws XmlSyntaxError.
 */
export interface XmlHandlers {
  /** An element opens; `name` is as written (with any prefix), values have their entities decoded. */
  open?: (name: string, attributes: Record<string, string>) => void;
  close?: (name: string) => void;
  /** Text between tags (entities decoded) and CDATA content. */
  text?: (text: string) => void;
}

export class XmlSyntaxError extends Error {}

export class XmlStream {
  private readonly parser = new SaxesParser({ position: false });
  /** Elements open: saxes hands out the white space around the root as text too, which no reader wants. */
  private depth = 0;

  constructor(handlers: XmlHandlers) {
    const { parser } = this;
    parser.on("error", (error) => {
      throw new XmlSyntaxError(error.message);
    });
    parser.on("doctype", () => {
      throw new XmlSyntaxError("a DOCTYPE is not allowed in a spreadsheet part");
    });
    const { open, close, text } = handlers;
    parser.on("opentag", (tag) => {
      this.depth++;
      open?.(tag.name, tag.attributes as Record<string, string>);
    });
    parser.on("closetag", (tag) => {
      this.depth--;
      close?.(tag.name);
    });
    if (text) {
      parser.on("text", (value) => {
        if (this.depth > 0) text(value);
      });
      parser.on("cdata", text);
    }
  }

  write(chunk: string): void {
    this.parser.write(chunk);
  }

  /** The end of the document: anything left open or unfinished is an error. */
  close(): void {
    this.parser.close();
  }
}
