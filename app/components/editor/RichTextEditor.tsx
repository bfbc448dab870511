import { useCallback, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from "react";
import { createEditor, Editor, Element as SlateElement, Range, Transforms, type Descendant } from "slate";
import { withHistory } from "slate-history";
import { Editable, Slate, useSlate, withReact, type RenderElementProps, type RenderLeafProps } from "slate-react";
import { useHydrated } from "../ui/DialogOrSection";
import { LinkIcon } from "../ui/Icons";
import { htmlToSlate, slateToHtml, type BlockType, type ScriptText } from "./html";

type Mark = keyof Omit<ScriptText, "text">;
const LIST_TYPES: BlockType[] = ["bulleted-list", "numbered-list"];

function withLinks(editor: Editor) {
  const { isInline } = editor;
  editor.isInline = (element) => element.type === "link" || isInline(element);
  return editor;
}

const isMarkActive = (editor: Editor, mark: Mark) => Boolean(Editor.marks(editor)?.[mark]);

function toggleMark(editor: Editor, mark: Mark) {
  if (isMarkActive(editor, mark)) Editor.removeMark(editor, mark);
  else Editor.addMark(editor, mark, true);
}

function isBlockActive(editor: Editor, type: BlockType) {
  const { selection } = editor;
  if (!selection) return false;
  const [match] = Editor.nodes(editor, {
    at: Editor.unhangRange(editor, selection),
    match: (n) => !Editor.isEditor(n) && SlateElement.isElement(n) && n.type === type,
  });
  return Boolean(match);
}

function toggleBlock(editor: Editor, type: BlockType) {
  const active = isBlockActive(editor, type);
  const isList = LIST_TYPES.includes(type);
  Transforms.unwrapNodes(editor, {
    match: (n) => !Editor.isEditor(n) && SlateElement.isElement(n) && LIST_TYPES.includes(n.type as BlockType),
    split: true,
  });
  Transforms.setNodes(editor, { type: active ? "paragraph" : isList ? "list-item" : type });
  if (!active && isList) Transforms.wrapNodes(editor, { type, children: [] });
}

function isLinkActive(editor: Editor) {
  const [link] = Editor.nodes(editor, { match: (n) => !Editor.isEditor(n) && SlateElement.isElement(n) && n.type === "link" });
  return Boolean(link);
}

function toggleLink(editor: Editor) {
  if (isLinkActive(editor)) {
    Transforms.unwrapNodes(editor, { match: (n) => !Editor.isEditor(n) && SlateElement.isElement(n) && n.type === "link" });
    return;
  }
  const url = window.prompt("Адрес ссылки (https://…)");
  if (!url || !/^(https?:|mailto:|tel:)/i.test(url.trim())) return;
  const { selection } = editor;
  if (selection && Range.isCollapsed(selection)) {
    Transforms.insertNodes(editor, { type: "link", url: url.trim(), children: [{ text: url.trim() }] });
  } else {
    Transforms.wrapNodes(editor, { type: "link", url: url.trim(), children: [] }, { split: true });
    Transforms.collapse(editor, { edge: "end" });
  }
}

function ToolButton({ active, label, onPress, children }: { active: boolean; label: string; onPress: () => void; children: ReactNode }) {
  return (
    <button
      type="button"
      title={label}
      // The accessible name contains the visible glyph too (H1, 1.), as speech input users say what they see.
      aria-label={typeof children === "string" ? `${label} — ${children}` : label}
      aria-pressed={active}
      className={`min-w-8 rounded px-2 py-1 text-sm ${active ? "bg-blue-600 text-white" : "hover:bg-slate-200 dark:hover:bg-slate-700"}`}
      // A mouse press keeps the editor's selection (no focus change); the click (mouse, Enter or Space) acts.
      onMouseDown={(event: MouseEvent) => event.preventDefault()}
      onClick={onPress}
    >
      {children}
    </button>
  );
}

function Toolbar() {
  const editor = useSlate();
  const mark = (m: Mark, label: string, glyph: ReactNode) => (
    <ToolButton active={isMarkActive(editor, m)} label={label} onPress={() => toggleMark(editor, m)}>
      {glyph}
    </ToolButton>
  );
  const block = (b: BlockType, label: string, glyph: ReactNode) => (
    <ToolButton active={isBlockActive(editor, b)} label={label} onPress={() => toggleBlock(editor, b)}>
      {glyph}
    </ToolButton>
  );
  return (
    <div className="flex flex-wrap gap-1 border-b border-slate-200 p-1 dark:border-slate-700" role="toolbar" aria-label="Форматирование">
      {mark("bold", "Жирный", <b>Ж</b>)}
      {mark("italic", "Курсив", <i>К</i>)}
      {mark("underline", "Подчёркнутый", <u>Ч</u>)}
      {block("heading-one", "Заголовок 1", "H1")}
      {block("heading-two", "Заголовок 2", "H2")}
      {block("block-quote", "Цитата", "❝")}
      {block("bulleted-list", "Маркированный список", "•")}
      {block("numbered-list", "Нумерованный список", "1.")}
      <ToolButton active={isLinkActive(editor)} label="Ссылка" onPress={() => toggleLink(editor)}>
        <LinkIcon />
      </ToolButton>
    </div>
  );
}

function renderElement({ attributes, children, element }: RenderElementProps) {
  switch (element.type) {
    case "heading-one":
      return (
        <h1 {...attributes} className="text-2xl font-bold">
          {children}
        </h1>
      );
    case "heading-two":
      return (
        <h2 {...attributes} className="text-xl font-semibold">
          {children}
        </h2>
      );
    case "block-quote":
      return (
        <blockquote {...attributes} className="border-l-4 border-slate-300 pl-3 italic">
          {children}
        </blockquote>
      );
    case "bulleted-list":
      return (
        <ul {...attributes} className="list-disc pl-6">
          {children}
        </ul>
      );
    case "numbered-list":
      return (
        <ol {...attributes} className="list-decimal pl-6">
          {children}
        </ol>
      );
    case "list-item":
      return <li {...attributes}>{children}</li>;
    case "link":
      return (
        <a {...attributes} href={element.url} className="text-blue-600 dark:text-blue-400 underline">
          {children}
        </a>
      );
    default:
      return <p {...attributes}>{children}</p>;
  }
}

function renderLeaf({ attributes, children, leaf }: RenderLeafProps) {
  let content = children;
  if (leaf.bold) content = <strong>{content}</strong>;
  if (leaf.italic) content = <em>{content}</em>;
  if (leaf.underline) content = <u>{content}</u>;
  return <span {...attributes}>{content}</span>;
}

const HOTKEYS: Record<string, Mark> = { b: "bold", i: "italic", u: "underline" };

function SlateField({ name, defaultHtml, label }: { name: string; defaultHtml: string; label: string }) {
  const [editor] = useState(() => {
    const e = withLinks(withHistory(withReact(createEditor())));
    e.children = htmlToSlate(defaultHtml);
    Editor.normalize(e, { force: true });
    return e;
  });
  const [html, setHtml] = useState(() => slateToHtml(editor.children));
  const onChange = useCallback((value: Descendant[]) => setHtml(slateToHtml(value)), []);
  const onKeyDown = useCallback(
    (event: KeyboardEvent) => {
      const mark = HOTKEYS[event.key.toLowerCase()];
      if (mark && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        toggleMark(editor, mark);
      }
    },
    [editor],
  );
  return (
    <div className="rounded-md border border-slate-300 dark:border-slate-600">
      <Slate editor={editor} initialValue={editor.children} onValueChange={onChange}>
        <Toolbar />
        <Editable
          aria-label={label}
          data-testid="rich-text-editor"
          // A long script scrolls inside the editor: its toolbar and the dialog's Сохранить stay in view. Not
          // sideways: Slate's placeholder is 100% wide from the padding's edge, 12 px more than the box.
          className="prose max-h-[55vh] max-w-none space-y-2 overflow-y-auto overflow-x-hidden p-3 text-sm outline-none"
          // Slate sets an inline min-height of its placeholder's height (two lines) on an empty editor, which beats
          // a class: a style of our own wins (issue 17), about the height of the no-JS textarea's 12 rows.
          style={{ minHeight: "18rem" }}
          renderElement={renderElement}
          renderLeaf={renderLeaf}
          onKeyDown={onKeyDown}
          placeholder="Текст скрипта"
        />
      </Slate>
      <input type="hidden" name={name} value={html} />
    </div>
  );
}

/**
 * The script editor: Slate once React runs (bold, italic, underline, headings, quotes, lists, links; saves
 * HTML into a hidden field), and a plain HTML textarea before that, so the form also works without JavaScript.
 */
export function RichTextEditor({ name, defaultHtml, label = "Текст скрипта" }: { name: string; defaultHtml: string; label?: string }) {
  const hydrated = useHydrated();
  if (!hydrated) {
    return (
      <textarea
        name={name}
        defaultValue={defaultHtml}
        aria-label={label}
        rows={12}
        className="input font-mono"
        placeholder="<p>Здравствуйте! Меня зовут …</p>"
      />
    );
  }
  return <SlateField name={name} defaultHtml={defaultHtml} label={label} />;
}
