/** The daily spend chart: uPlot bars sized to their container, redrawn when it resizes. */
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export function SpendChart({ daily }: { daily: Array<{ day: string; cost: string }> }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current!;
    const xs = daily.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000);
    const ys = daily.map((d) => Number(d.cost)); // display only: the exact strings are in the tables
    const opts = (width: number): uPlot.Options => ({
      width,
      height: 220,
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [{}, { values: (_u, vals) => vals.map((v) => `$${v}`), size: 78 }],
      series: [
        {},
        { label: "Spend (USD)", fill: "rgba(37, 99, 235, 0.5)", stroke: "#2563eb", paths: uPlot.paths.bars!({ size: [0.7, 40] }), points: { show: false } },
      ],
      legend: { show: false },
    });
    const plot = new uPlot(opts(el.clientWidth || 600), [xs, ys], el);
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [daily]);
  return <div ref={box} class="chart" role="img" aria-label={`Spend per day for the last ${daily.length} days`} />;
}
