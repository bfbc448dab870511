import { Group } from "@visx/group";
import { Pie } from "@visx/shape";
import { useState } from "react";
import { pieSlices } from "./pieSlices";

interface PieChartProps {
  /** Each entry's own colour (a status's colour from the server). */
  entries: Array<{ label: string; value: number; color: string }>;
  /** Read by screen readers and shown as the SVG's title. */
  title: string;
  size?: number;
  testId?: string;
}

const GREYED = "#cbd5e1";

/**
 * A donut of shares (visx Pie), rendered as SVG on the server so it shows before hydration. Hovering a slice
 * or its legend row highlights it and greys the others; the legend gives label and rounded percent.
 */
export function PieChart({ entries, title, size = 240, testId }: PieChartProps) {
  const [active, setActive] = useState<string | null>(null);
  const slices = pieSlices(entries);
  const radius = size / 2;
  const fill = (label: string, color: string) => (active === null || active === label ? color : GREYED);
  return (
    <div className="flex flex-wrap items-center justify-center gap-6 sm:justify-start" data-testid={testId}>
      <svg width={size} height={size} viewBox={`0 0 ${size} ${size}`} role="img" aria-label={title}>
        <title>{title}</title>
        <Group top={radius} left={radius}>
          <Pie
            data={slices}
            pieValue={(s) => s.value}
            pieSortValues={null}
            outerRadius={radius - 4}
            innerRadius={radius * 0.5}
            padAngle={slices.length > 1 ? 0.01 : 0}
          >
            {(pie) =>
              pie.arcs.map((arc) => (
                <path
                  key={arc.data.label}
                  d={pie.path(arc) ?? ""}
                  fill={fill(arc.data.label, arc.data.color)}
                  // The gaps between slices are the card's own colour, in either theme.
                  className="cursor-pointer stroke-white transition-colors dark:stroke-slate-800"
                  strokeWidth={active === arc.data.label ? 2 : 1}
                  data-label={arc.data.label}
                  data-active={active === arc.data.label ? "true" : undefined}
                  onMouseEnter={() => setActive(arc.data.label)}
                  onMouseLeave={() => setActive(null)}
                >
                  <title>{`${arc.data.label}: ${arc.data.value} (${arc.data.percent}%)`}</title>
                </path>
              ))
            }
          </Pie>
        </Group>
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
