import { useId, type ClipboardEvent, type MouseEvent } from "react";

/** SPEC Layout: the watermark is the user's displayName in a 100 by 100 grid. */
export const WATERMARK_GRID = 100;
const MIN_CELL_WIDTH = 180;
const MIN_CELL_HEIGHT = 70;

/**
 * The user's displayName repeated in a 100 by 100 grid over the script, drawn as one SVG pattern (a single
 * element instead of 10,000), so a screenshot or photo of the screen names whoever leaked it.
 */
export function Watermark({ text }: { text: string }) {
  const patternId = `watermark-${useId().replace(/:/g, "")}`;
  // A cell as large as the name needs (about 8.5 px a letter at 14 px, turned 20°), so a long name shows whole
  // instead of being cut by its tile.
  const textWidth = text.length * 8.5;
  const CELL_WIDTH = Math.max(MIN_CELL_WIDTH, Math.round(textWidth) + 30);
  const CELL_HEIGHT = Math.max(MIN_CELL_HEIGHT, Math.round(textWidth * 0.34) + 30);
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
 * The frame does not scroll, its inner box does: the watermark lies over the frame (above the text, letting
 * clicks through), so it covers whatever part of a long script is in view instead of scrolling away with the top.
 */
export function ScriptContent({ html, watermark, className = "max-h-[70vh]" }: { html: string; watermark: string; className?: string }) {
  return (
    <div
      className={`${className} relative flex select-none flex-col overflow-hidden rounded-md border border-slate-200 bg-white text-slate-900 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100`}
      style={{ WebkitUserSelect: "none", userSelect: "none" }}
      onCopy={block}
      onCut={block}
      onContextMenu={block}
      onDragStart={block}
      data-testid="script-viewer"
    >
      {/* Focusable, so a long script scrolls from the keyboard too (axe-core: scrollable-region-focusable). */}
      <div className="min-h-0 flex-1 overflow-auto p-4" data-testid="script-scroll" tabIndex={0} role="region" aria-label="Текст скрипта">
        <div
          className="script-html space-y-2 text-sm [&_a]:text-blue-600 [&_a]:underline [&_blockquote]:border-l-4 [&_blockquote]:pl-3 [&_h1]:text-2xl [&_h1]:font-bold [&_h2]:text-xl [&_h2]:font-semibold [&_ol]:list-decimal [&_ol]:pl-6 [&_ul]:list-disc [&_ul]:pl-6 dark:[&_a]:text-blue-400"
          // Sanitised on the server with sanitize-html when saved and again in the loader that sent it.
          dangerouslySetInnerHTML={{ __html: html }}
        />
      </div>
      <div className="pointer-events-none absolute inset-0 overflow-hidden text-slate-500/25 dark:text-slate-400/25" data-testid="watermark-layer">
        <Watermark text={watermark} />
      </div>
    </div>
  );
}
