// Live plots (uPlot) of energy, the largest constraint error and the step's
// wall time over a rolling window of simulated time, so drift and the cost
// of each method can be watched side by side.
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { PlotBuffer, type Series } from "./plot-buffer";
import type { Frame } from "./scene-model";

// uPlot redraws a whole chart per setData; 15 Hz is smooth enough for a
// rolling plot and leaves the frame budget to the view.
const REFRESH_MS = 66;
// A log axis cannot show 0: an exact constraint shows at this floor.
const ERROR_FLOOR = 1e-16;

const AXIS = { stroke: "#8593a1", grid: { stroke: "#1f2830", width: 1 }, ticks: { stroke: "#26313c", width: 1 }, size: 48 };

interface Chart {
  title: string;
  series: { key: Series; label: string; color: string; dash?: number[] }[];
  log?: boolean;
  unit: string;
}

const CHARTS: Chart[] = [
  {
    title: "Energy (J)",
    unit: "J",
    series: [
      { key: "kinetic", label: "kinetic", color: "#56a0e6" },
      { key: "potential", label: "potential", color: "#c58fd8" },
      { key: "total", label: "total", color: "#ffd166" },
    ],
  },
  { title: "Max constraint error |C|", unit: "", log: true, series: [{ key: "maxError", label: "max |C|", color: "#e0523a" }] },
  { title: "Step time (ms)", unit: "ms", series: [{ key: "stepMs", label: "step", color: "#2bb3a3" }] },
];

export class Plots {
  readonly buffer = new PlotBuffer();
  private readonly charts: { plot: uPlot; chart: Chart; box: HTMLElement }[] = [];
  private dirty = false;
  private drawnAt = 0;

  constructor(private readonly container: HTMLElement) {
    for (const chart of CHARTS) {
      const box = document.createElement("div");
      box.className = "plot";
      container.append(box);
      const plot = new uPlot(
        {
          title: chart.title,
          width: 300,
          height: 120,
          cursor: { drag: { x: false, y: false } },
          legend: { live: true },
          scales: { x: { time: false }, y: chart.log ? { distr: 3 } : { auto: true } },
          axes: [
            { ...AXIS, size: 28, values: (_u, ticks) => ticks.map((t) => seconds(t, ticks)) },
            { ...AXIS, values: chart.log ? (_u, ticks) => ticks.map((t) => (t == null ? "" : t.toExponential(0))) : undefined },
          ],
          series: [
            { label: "t", value: (_u, v) => (v == null ? "" : v.toFixed(2) + " s") },
            ...chart.series.map((s) => ({
              label: s.label,
              stroke: s.color,
              width: 1.5,
              points: { show: false },
              value: (_u: uPlot, v: number | null) => (v == null ? "" : formatValue(v, chart.unit)),
            })),
          ],
        },
        [[], ...chart.series.map(() => [])],
        box,
      );
      this.charts.push({ plot, chart, box });
    }
    new ResizeObserver(() => this.resize()).observe(container);
    this.resize();
  }

  clear(): void {
    this.buffer.clear();
    this.dirty = true;
  }

  push(frame: Frame): void {
    const d = frame.diagnostics;
    if (!d) return;
    const added = this.buffer.push({
      tick: frame.tick,
      time: frame.time,
      kinetic: d.kinetic,
      gravitational: d.gravitational,
      spring: d.spring,
      maxError: d.maxError,
      stepSeconds: d.stepSeconds,
    });
    this.dirty ||= added;
  }

  get samples(): number {
    return this.buffer.total;
  }

  // Redraws at most every REFRESH_MS, and only when samples came in.
  refresh(now = performance.now()): void {
    if (!this.dirty || now - this.drawnAt < REFRESH_MS) return;
    this.dirty = false;
    this.drawnAt = now;
    const b = this.buffer;
    for (const { plot, chart } of this.charts) {
      const ys = chart.series.map((s) => (chart.log ? b.columns[s.key].map((v) => Math.max(ERROR_FLOOR, v)) : b.columns[s.key]));
      plot.setData([b.time, ...ys]);
      // Away from the cursor the legend reads the newest values.
      if (plot.cursor.left == null || plot.cursor.left < 0) plot.setLegend({ idx: b.time.length - 1 });
    }
  }

  private resize(): void {
    const style = getComputedStyle(this.container);
    const height = this.container.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    for (const { plot, box } of this.charts) {
      // Title and legend take about 50 px of the box.
      plot.setSize({ width: Math.max(120, box.clientWidth), height: Math.max(60, height - 52) });
    }
  }
}

// Tick labels with as many decimals as their spacing needs.
function seconds(t: number | null, ticks: number[]): string {
  if (t == null) return "";
  const step = ticks.length > 1 ? Math.abs(ticks[1] - ticks[0]) : 1;
  let decimals = 0;
  while (decimals < 3 && Math.abs(step * 10 ** decimals - Math.round(step * 10 ** decimals)) > 1e-6) decimals++;
  return t.toFixed(decimals) + " s";
}

function formatValue(v: number, unit: string): string {
  const a = Math.abs(v);
  const text = a !== 0 && (a >= 1e4 || a < 1e-2) ? v.toExponential(1) : v.toPrecision(3);
  return unit ? `${text} ${unit}` : text;
}
