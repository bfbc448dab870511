import { arc, pie } from "@visx/shape";
import { type PieSlice, pieSlices } from "./pieSlices";

/** A slice as PieChart draws it: its share, and its SVG path around the chart's centre. */
export interface DrawnSlice extends PieSlice {
  d: string;
}

/** A donut drawn on the server: the browser gets the paths, not the geometry's code (decision 090). */
export interface PieDrawing {
  size: number;
  slices: DrawnSlice[];
}

/**
 * The donut of these shares (pieSlices: largest first, the ninth and later one Другое slice), `size` px square:
 * the paths visx's Pie would give the same entries (d3-shape's pie and arc, visx's defaults), computed here so
 * the page's script carries no chart code (~5 KB compressed on a slow link).
 */
export function drawPie(entries: Array<{ label: string; value: number; color: string }>, size = 240): PieDrawing {
  const slices = pieSlices(entries);
  const radius = size / 2;
  const path = arc<{ startAngle: number; endAngle: number; padAngle: number }>({ outerRadius: radius - 4, innerRadius: radius * 0.5 });
  const arcs = pie<PieSlice>({ value: (s) => s.value, sortValues: null, padAngle: slices.length > 1 ? 0.01 : 0 })(slices);
  return { size, slices: arcs.map((a) => ({ ...a.data, d: path(a) ?? "" })) };
}
