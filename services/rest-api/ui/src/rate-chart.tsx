import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

/** One line per series over time (x: seconds since epoch), drawn with uPlot and redrawn as points arrive. */
export function RateChart({
  title,
  labels,
  xs,
  ys,
  testId,
}: {
  title: string;
  labels: string[];
  xs: number[];
  ys: number[][];
  testId: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = labels.join('\u0000');
  useEffect(() => {
    const colours = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];
    const opts: uPlot.Options = {
      title,
      width: 560,
      height: 220,
      series: [{}, ...labels.map((label, i) => ({ label, stroke: colours[i % colours.length], width: 2 }))],
      axes: [{}, { size: 60 }],
      scales: { x: { time: true } },
    };
    plot.current = new uPlot(opts, [xs, ...ys], box.current!);
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape]);
  useEffect(() => {
    plot.current?.setData([xs, ...ys]);
  }, [xs, ys]);
  return <div class="chart" data-testid={testId} data-points={xs.length} ref={box} />;
}
