import { useState } from "react";
import type { PieDrawing } from "./pie-drawing.server";

interface PieChartProps {
  /** The donut as the loader drew it (drawPie). */
  drawing: PieDrawing;
  /** Read by screen readers and shown as the SVG's title. */
  title: string;
  testId?: string;
}

const GREYED = "#cbd5e1";

/**
 * A donut of shares, its paths drawn on the server (drawPie: visx's geometry, none of its code in the browser),
 * so it shows before hydration and without JavaScript. Hovering a slice or its legend row highlights it and greys
 * the others; the legend gives label and rounded percent.
 */
export function PieChart({ drawing, title, testId }: PieChartProps) {
  const [active, setActive] = useState<string | null>(null);
  const { size, slices } = drawing;
  const radius = size / 2;
  const fill = (label: string, color: string) => (active === null || active === label ? color : GREYED);
  return (
    <div className="flex flex-wrap items-center justify-center gap-6 sm:justify-start" data-testid={testId}>
      <svg width={size} height={size} viewBox={`0 0 ${size} ${size}`} role="img" aria-label={title}>
        <title>{title}</title>
        <g className="visx-group" transform={`translate(${radius}, ${radius})`}>
          {slices.map((slice) => (
            <path
              key={slice.label}
              d={slice.d}
              fill={fill(slice.label, slice.color)}
              // The gaps between slices are the card's own colour, in either theme.
              className="cursor-pointer stroke-white transition-colors dark:stroke-slate-800"
              strokeWidth={active === slice.label ? 2 : 1}
              data-label={slice.label}
              data-active={active === slice.label ? "true" : undefined}
              onMouseEnter={() => setActive(slice.label)}
              onMouseLeave={() => setActive(null)}
            >
              <title>{`${slice.label}: ${slice.value} (${slice.percent}%)`}</title>
            </path>
          ))}
        </g>
      </svg>
      <ul className="space-y-1 text-sm">
        {slices.map((s) => (
          <li
            key={s.label}
            className={`flex items-center gap-2 ${active !== null && active !== s.label ? "opacity-50" : ""}`}
            onMouseEnter={() => setActive(s.label)}
            onMouseLeave={() => setActive(null)}
            data-testid="legend-item"
          >
            <span className="inline-block h-3 w-3 rounded-sm" style={{ backgroundColor: fill(s.label, s.color) }} aria-hidden="true" />
            <span>{s.label}</span>
            <span className="font-semibold">{s.percent}%</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
