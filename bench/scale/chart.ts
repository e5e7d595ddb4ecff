/**
 * The chart of bench/scale: p50 latency against the size of the data, one panel per series, one
 * line per operation, rendered to SVG by Vega-Lite and Vega in Node (no browser).
 */
import * as vega from 'vega'
import { compile, type TopLevelSpec } from 'vega-lite'

interface ChartPoint {
  readonly series: string
  readonly operation: string
  readonly size: number
  readonly p50: number
}

const sizeLabel: Record<string, string> = {
  artifacts: 'artifacts in the database',
  versions: 'versions of the artifact',
  'audit events': 'audit events of the workspace',
}

export async function renderChart(points: readonly ChartPoint[]): Promise<string> {
  const order = ['artifacts', 'versions', 'audit events']
  const series = [...new Set(points.map((p) => p.series))].sort((x, y) => order.indexOf(x) - order.indexOf(y))
  const sizesOf = (name: string) => [...new Set(points.filter((p) => p.series === name).map((p) => p.size))]
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'bench/scale: p50 latency as the data grows (flat = index-bound)', anchor: 'start' },
    data: { values: points.map((p) => ({ ...p })) },
    hconcat: series.map((name) => ({
      title: name,
      width: 260,
      height: 220,
      transform: [{ filter: { field: 'series', equal: name } }],
      mark: { type: 'line', point: true },
      encoding: {
        x: {
          field: 'size',
          type: 'quantitative',
          scale: { type: 'log' },
          title: sizeLabel[name] ?? name,
          axis: { format: '~s', values: sizesOf(name), grid: false },
        },
        y: { field: 'p50', type: 'quantitative', title: 'p50 ms', scale: { zero: true } },
        color: { field: 'operation', type: 'nominal', legend: { orient: 'bottom', columns: 1, title: null, labelLimit: 300 } },
      },
    })),
    resolve: { scale: { color: 'independent', y: 'independent' } },
    config: { font: 'sans-serif' },
  }
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' })
  return view.toSVG()
}
