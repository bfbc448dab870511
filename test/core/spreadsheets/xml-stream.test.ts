import { describe, expect, it } from "vitest";
import { XmlStream, XmlSyntaxError } from "../../../server/core/spreadsheets/xml-stream";

/**
 * The streaming XML parser under the .xlsx reader (server/core/spreadsheets/xml-stream.ts): the events it gives, that
 * they do not depend on where the chunks are cut, and that a document that is not well formed is refused.
 */
type Event = ["open", string, Record<string, string>] | ["close", string] | ["text", string];

function parse(chunks: string[]): Event[] {
  const events: Event[] = [];
  const stream = new XmlStream({
    open: (name, attributes) => events.push(["open", name, { ...attributes }]),
    close: (name) => events.push(["close", name]),
    text: (text) => {
      // Adjacent text (text then CDATA) is one run for the reader, which concatenates it.
      const last = events[events.length - 1];
      if (last?.[0] === "text") last[1] += text;
      else events.push(["text", text]);
    },
  });
  for (const chunk of chunks) stream.write(chunk);
  stream.close();
  return events;
}

const SHEET =
  `\uFEFF<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n` +
  `<x:worksheet xmlns:x="urn:main" xmlns:r='urn:rel'><!-- written by hand -->` +
  `<x:sheetData><x:row r="1" spans = '1:3'><x:c r="A1" t="inlineStr"><x:is><x:t xml:space="preserve">Іван &amp; Ко &lt;опт&gt; &#1046;&#x416;</x:t></x:is></x:c>` +
  `<x:c r="B1" t="str"><x:v><![CDATA[050 <123> & 45]]></x:v></x:c><x:c r="C1" s="2"/>` +
  `<x:c r="D1" t="s" a="x > y" b='"quoted"'><x:v>7</x:v></x:c></x:row>` +
  `<x:row r="2"><x:c r="A2" t="str"><x:v>line\r\none\rtwo</x:v></x:c></x:row></x:sheetData></x:worksheet>\n`;

describe("the XML tokenizer", () => {
  it("gives elements, attributes and text with entities, CDATA and line ends resolved", () => {
    const events = parse([SHEET]);
    expect(events).toEqual([
      ["open", "x:worksheet", { "xmlns:x": "urn:main", "xmlns:r": "urn:rel" }],
      ["open", "x:sheetData", {}],
      ["open", "x:row", { r: "1", spans: "1:3" }],
      ["open", "x:c", { r: "A1", t: "inlineStr" }],
      ["open", "x:is", {}],
      ["open", "x:t", { "xml:space": "preserve" }],
      ["text", "Іван & Ко <опт> ЖЖ"],
      ["close", "x:t"],
      ["close", "x:is"],
      ["close", "x:c"],
      ["open", "x:c", { r: "B1", t: "str" }],
      ["open", "x:v", {}],
      ["text", "050 <123> & 45"],
      ["close", "x:v"],
      ["close", "x:c"],
      ["open", "x:c", { r: "C1", s: "2" }],
      ["close", "x:c"],
      ["open", "x:c", { r: "D1", t: "s", a: "x > y", b: '"quoted"' }],
      ["open", "x:v", {}],
      ["text", "7"],
      ["close", "x:v"],
      ["close", "x:c"],
      ["close", "x:row"],
      ["open", "x:row", { r: "2" }],
      ["open", "x:c", { r: "A2", t: "str" }],
      ["open", "x:v", {}],
      ["text", "line\none\ntwo"],
      ["close", "x:v"],
      ["close", "x:c"],
      ["close", "x:row"],
      ["close", "x:sheetData"],
      ["close", "x:worksheet"],
    ]);
  });

  it("gives the same events wherever the input is cut into chunks", () => {
    const whole = parse([SHEET]);
    for (let cut = 1; cut < SHEET.length; cut++) {
      expect(parse([SHEET.slice(0, cut), SHEET.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    }
    expect(parse([...SHEET])).toEqual(whole);
  });

  it.each([
    ["a tag left open", `<a><b></b>`],
    ["a closing tag that does not match", `<a><b></a></b>`],
    ["a closing tag with nothing open", `<a></a></b>`],
    ["an unknown entity", `<a>&nbsp;</a>`],
    ["an entity without its semicolon", `<a>AT&T</a>`],
    ["a truncated tag", `<a><b r="1"`],
    ["a DOCTYPE (entity tricks)", `<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>`],
    ["an attribute without quotes", `<a r=1></a>`],
    ["a < inside an attribute", `<a r="<"></a>`],
    ["text outside the root", `<a></a>text`],
    ["a second root", `<a></a><b></b>`],
    ["no root at all", `<?xml version="1.0"?>`],
    ["an element without a name", `<a>< b/></a>`],
  ])("refuses %s", (_, xml) => {
    expect(() => parse([xml])).toThrow(XmlSyntaxError);
  });
});
