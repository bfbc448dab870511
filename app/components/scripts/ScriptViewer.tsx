import { useId, type ClipboardEvent, type MouseEvent } from "react";

/** SPEC Layout: the watermark is the user's displayName in a 100 by 100 grid. */
export const WATERMARK_GRID = 100;
const CELL_WIDTH = 180;
const CELL_HEIGHT = 70;

/**
 * The user's displayName repeated in a 100 by 100 grid over the script, drawn as one SVG pattern (a single
 * element instead of 10,000), so a screenshot or photo of the screen names whoever leaked it.
 */
export function Watermark({ text }: { text: string }) {
  const patternId = `watermark-${useId().replace(/:/g, "")}`;
  return (
    <svg
      aria-hidden="true"
      className="pointer-events-none absolute left-0 top-0 select-none"
      width={WATERMARK_GRID * CELL_WIDTH}
      height={WATERMARK_GRID * CELL_HEIGHT}
      data-testid="watermark"
      data-columns={WATERMARK_GRID}
      data-rows={WATERMARK_GRID}
    >
      <defs>
        <pattern id={patternId} width={CELL_WIDTH} height={CELL_HEIGHT} patternUnits="userSpaceOnUse">
          <text
            x={CELL_WIDTH / 2}
            y={CELL_HEIGHT / 2}
            textAnchor="middle"
            fontSize="14"
            fill="currentColor"
            transform={`rotate(-20 ${CELL_WIDTH / 2} ${CELL_HEIGHT / 2})`}
          >
            {text}
          </text>
        </pattern>
      </defs>
      <rect width={WATERMARK_GRID * CELL_WIDTH} height={WATERMARK_GRID * CELL_HEIGHT} fill={`url(#${patternId})`} />
    </svg>
  );
}

const block = (event: ClipboardEvent | MouseEvent) => event.preventDefault();

/**
 * A script as a manager reads it: sanitised HTML (done on the server) under the watermark; copy, cut and the
 * context menu are blocked, and the text cannot be selected (which also holds without JavaScript).
 */
export function ScriptContent({ html, watermark }: { html: string; watermark: string }) {
  return (
    <div
      className="relative max-h-[70vh] select-none overflow-auto rounded-md border border-slate-200 bg-white p-4 text-slate-900 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
      style={{ WebkitUserSelect: "none", userSelect: "none" }}
      onCopy={block}
      onCut={block}
      onContextMenu={block}
      onDragStart={block}
      data-testid="script-viewer"
    >
      <div className="absolute inset-0 overflow-hidden text-slate-400/30 dark:text-slate-500/30">
        <Watermark text={watermark} />
      </div>
      <div
        className="script-html relative space-y-2 text-sm [&_a]:text-blue-600 [&_a]:underline [&_blockquote]:border-l-4 [&_blockquote]:pl-3 [&_h1]:text-2xl [&_h1]:font-bold [&_h2]:text-xl [&_h2]:font-semibold [&_ol]:list-decimal [&_ol]:pl-6 [&_ul]:list-disc [&_ul]:pl-6"
        // Sanitised on the server with sanitize-html when saved and again in the loader that sent it.
        dangerouslySetInnerHTML={{ __html: html }}
      />
    </div>
  );
}
