import { Element as SlateElement, Text, type BaseEditor, type Descendant } from "slate";
import type { HistoryEditor } from "slate-history";
import type { ReactEditor } from "slate-react";

/** The node shapes the script editor works with (bold, italic, underline; headings, lists, quotes, links). */
export type BlockType = "paragraph" | "heading-one" | "heading-two" | "block-quote" | "bulleted-list" | "numbered-list" | "list-item";
export type ScriptElement = { type: BlockType; children: Descendant[] } | { type: "link"; url: string; children: Descendant[] };
export type ScriptText = { text: string; bold?: true; italic?: true; underline?: true };

declare module "slate" {
  interface CustomTypes {
    Editor: BaseEditor & ReactEditor & HistoryEditor;
    Element: ScriptElement;
    Text: ScriptText;
  }
}

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const BLOCK_TAGS: Record<BlockType, string> = {
  paragraph: "p",
  "heading-one": "h1",
  "heading-two": "h2",
  "block-quote": "blockquote",
  "bulleted-list": "ul",
  "numbered-list": "ol",
  "list-item": "li",
};

/** Slate value → HTML (the server sanitises it again on save). */
export function slateToHtml(nodes: Descendant[]): string {
  return nodes.map(serializeNode).join("");
}

function serializeNode(node: Descendant): string {
  if (Text.isText(node)) {
    let html = escapeHtml(node.text).replace(/\n/g, "<br>");
    if (node.bold) html = `<strong>${html}</strong>`;
    if (node.italic) html = `<em>${html}</em>`;
    if (node.underline) html = `<u>${html}</u>`;
    return html;
  }
  const children = node.children.map(serializeNode).join("");
  if (node.type === "link") return `<a href="${escapeHtml(node.url)}">${children}</a>`;
  const tag = BLOCK_TAGS[node.type] ?? "p";
  return `<${tag}>${children}</${tag}>`;
}

const TAG_BLOCKS: Record<string, BlockType> = {
  P: "paragraph",
  DIV: "paragraph",
  H1: "heading-one",
  H2: "heading-two",
  H3: "heading-two",
  H4: "heading-two",
  BLOCKQUOTE: "block-quote",
  UL: "bulleted-list",
  OL: "numbered-list",
  LI: "list-item",
};
const MARK_TAGS: Record<string, keyof Omit<ScriptText, "text">> = {
  STRONG: "bold",
  B: "bold",
  EM: "italic",
  I: "italic",
  U: "underline",
};

type Marks = Omit<ScriptText, "text">;

/** HTML → Slate value (browser only: uses DOMParser). Stray text at block level is wrapped in paragraphs. */
export function htmlToSlate(html: string): Descendant[] {
  const doc = new DOMParser().parseFromString(html || "", "text/html");
  const blocks = asBlocks(Array.from(doc.body.childNodes).flatMap((node) => deserialize(node, {})));
  return blocks.length ? blocks : [{ type: "paragraph", children: [{ text: "" }] }];
}

const isBlock = (node: Descendant) => SlateElement.isElement(node) && node.type !== "link";

/** Groups runs of inline nodes into paragraphs so a block's children are all blocks or all inline. */
function asBlocks(nodes: Descendant[]): Descendant[] {
  const result: Descendant[] = [];
  let run: Descendant[] = [];
  const flush = () => {
    if (run.some((n) => !Text.isText(n) || n.text.trim() !== "")) result.push({ type: "paragraph", children: run });
    run = [];
  };
  for (const node of nodes) {
    if (isBlock(node)) {
      flush();
      result.push(node);
    } else run.push(node);
  }
  flush();
  return result;
}

function deserialize(node: ChildNode, marks: Marks): Descendant[] {
  if (node.nodeType === 3) return [{ text: node.textContent ?? "", ...marks }];
  if (node.nodeType !== 1) return [];
  const element = node as HTMLElement;
  const tag = element.tagName;
  if (tag === "BR") return [{ text: "\n", ...marks }];
  const mark = MARK_TAGS[tag];
  const childMarks = mark ? { ...marks, [mark]: true as const } : marks;
  const children = Array.from(element.childNodes).flatMap((child) => deserialize(child, childMarks));
  if (tag === "A") {
    const inline = children.filter((c) => !isBlock(c));
    return [{ type: "link", url: element.getAttribute("href") ?? "", children: inline.length ? inline : [{ text: "" }] }];
  }
  const block = TAG_BLOCKS[tag];
  if (!block) return children;
  let content: Descendant[];
  if (block === "bulleted-list" || block === "numbered-list") {
    content = children
      .filter((c) => !Text.isText(c) || c.text.trim() !== "")
      .map((c) => (SlateElement.isElement(c) && c.type === "list-item" ? c : { type: "list-item" as const, children: [c] }));
  } else if (children.some(isBlock)) {
    content = asBlocks(children);
  } else {
    content = children;
  }
  return [{ type: block, children: content.length ? content : [{ text: "" }] }];
}
