/**
 * Inline SVG charts for the HTML report: no script, no external file. Colours come from CSS classes
 * (`s0`…, `cat-…`) that the page defines for light and dark, so the charts follow the theme.
 */

export const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const n1 = (x: number): string => (Math.round(x * 10) / 10).toString();

export interface Series {
  id: string;
  label: string;
  /** CSS class giving the colour. */
  className: string;
}

export interface BarValue {
  series: string;
  value: number | null;
  low?: number | null;
  high?: number | null;
}

export interface BarGroup {
  label: string;
  /** What `data-group` says (the label may carry marks); the label when absent. */
  key?: string;
  bars: BarValue[];
}

function legend(series: readonly Series[], x: number, y: number): string {
  let cx = x;
  return series
    .map((s) => {
      const item = `<g class="legend-item"><rect x="${cx}" y="${y - 10}" width="12" height="12" rx="2" class="${s.className}"/><text x="${cx + 17}" y="${y}" class="label">${escapeHtml(s.label)}</text></g>`;
      cx += 30 + s.label.length * 7;
      return item;
    })
    .join('');
}

/** A scale top that keeps small rates readable (a 4% TPR should not be a sliver of a 100% axis). */
export function niceMax(values: Array<number | null | undefined>): number {
  const top = Math.max(0, ...values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)));
  if (top <= 0) return 10;
  const step = top <= 20 ? 5 : 10;
  return Math.min(100, Math.max(step, Math.ceil(top / step) * step));
}

/** Vertical grouped bars (percent) with confidence-interval whiskers. */
export function groupedBarChart(opts: { title: string; groups: readonly BarGroup[]; series: readonly Series[]; unit?: string; id: string }): string {
  const unit = opts.unit ?? '%';
  const barW = 18;
  const gap = 28;
  const left = 44;
  const top = 34;
  const plotH = 200;
  const groupW = opts.series.length * barW + gap;
  const width = Math.max(360, left + opts.groups.length * groupW + 16);
  const height = top + plotH + 44;
  const yMax = niceMax(opts.groups.flatMap((g) => g.bars.flatMap((b) => [b.value, b.high])));
  const y = (v: number): number => top + plotH - (Math.max(0, Math.min(yMax, v)) / yMax) * plotH;
  const parts: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const v = (yMax / 4) * i;
    parts.push(`<line x1="${left}" x2="${width - 8}" y1="${n1(y(v))}" y2="${n1(y(v))}" class="grid"/>`);
    parts.push(`<text x="${left - 6}" y="${n1(y(v) + 4)}" class="tick" text-anchor="end">${n1(v)}</text>`);
  }
  opts.groups.forEach((g, gi) => {
    const gx = left + gap / 2 + gi * groupW;
    g.bars.forEach((b) => {
      const si = opts.series.findIndex((s) => s.id === b.series);
      if (si < 0 || b.value === null) return;
      const s = opts.series[si];
      const x = gx + si * barW;
      const ci = typeof b.low === 'number' && typeof b.high === 'number' ? ` [${n1(b.low)}, ${n1(b.high)}]` : '';
      parts.push(
        `<rect class="bar ${s.className}" x="${x + 1}" y="${n1(y(b.value))}" width="${barW - 2}" height="${n1(top + plotH - y(b.value))}" ` +
          `data-group="${escapeHtml(g.key ?? g.label)}" data-series="${escapeHtml(s.id)}" data-value="${b.value}"><title>${escapeHtml(`${s.label}, ${g.label}: ${n1(b.value)}${unit}${ci}`)}</title></rect>`,
      );
      if (typeof b.low === 'number' && typeof b.high === 'number') {
        const cx = x + barW / 2;
        const [yl, yh] = [n1(y(b.low)), n1(y(b.high))];
        parts.push(
          `<g class="whisker" data-group="${escapeHtml(g.key ?? g.label)}" data-series="${escapeHtml(s.id)}"><line x1="${cx}" x2="${cx}" y1="${yl}" y2="${yh}"/>` +
            `<line x1="${cx - 4}" x2="${cx + 4}" y1="${yl}" y2="${yl}"/><line x1="${cx - 4}" x2="${cx + 4}" y1="${yh}" y2="${yh}"/></g>`,
        );
      }
    });
    parts.push(`<text x="${gx + (opts.series.length * barW) / 2}" y="${top + plotH + 18}" class="label" text-anchor="middle">${escapeHtml(g.label)}</text>`);
  });
  parts.push(`<line x1="${left}" x2="${width - 8}" y1="${top + plotH}" y2="${top + plotH}" class="axis"/>`);
  parts.push(legend(opts.series, left, 16));
  return (
    `<svg id="${escapeHtml(opts.id)}" class="chart" role="img" aria-label="${escapeHtml(opts.title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">` +
    `<title>${escapeHtml(opts.title)}</title>${parts.join('')}</svg>`
  );
}

export interface StackedBar {
  label: string;
  /** Shares in percent; they should sum to 100. */
  segments: Array<{ series: string; value: number; count?: number }>;
}

/** Horizontal 100% stacked bars, one per column of a share table. */
export function stackedBarChart(opts: { title: string; bars: readonly StackedBar[]; series: readonly Series[]; id: string }): string {
  const left = 130;
  const plotW = 460;
  const barH = 22;
  const gap = 10;
  const legendRows = Math.ceil(opts.series.length / 3);
  const top = 12 + legendRows * 20;
  const width = left + plotW + 20;
  const height = top + opts.bars.length * (barH + gap) + 24;
  const parts: string[] = [];
  opts.series.forEach((s, i) => {
    const lx = 8 + (i % 3) * 200;
    const ly = 22 + Math.floor(i / 3) * 20;
    parts.push(`<g class="legend-item"><rect x="${lx}" y="${ly - 10}" width="12" height="12" rx="2" class="${s.className}"/><text x="${lx + 17}" y="${ly}" class="label">${escapeHtml(s.label)}</text></g>`);
  });
  opts.bars.forEach((b, bi) => {
    const by = top + bi * (barH + gap);
    parts.push(`<text x="${left - 8}" y="${by + barH / 2 + 4}" class="label" text-anchor="end">${escapeHtml(b.label)}</text>`);
    let x = left;
    for (const seg of b.segments) {
      const s = opts.series.find((t) => t.id === seg.series);
      if (!s || seg.value <= 0) continue;
      const w = (seg.value / 100) * plotW;
      const count = seg.count === undefined ? '' : ` (${seg.count})`;
      parts.push(
        `<rect class="bar segment ${s.className}" x="${n1(x)}" y="${by}" width="${n1(w)}" height="${barH}" data-group="${escapeHtml(b.label)}" data-series="${escapeHtml(s.id)}" data-value="${seg.value}">` +
          `<title>${escapeHtml(`${b.label}, ${s.label}: ${n1(seg.value)}%${count}`)}</title></rect>`,
      );
      x += w;
    }
  });
  const axisY = top + opts.bars.length * (barH + gap);
  for (const v of [0, 25, 50, 75, 100]) {
    const x = left + (v / 100) * plotW;
    parts.push(`<text x="${x}" y="${axisY + 12}" class="tick" text-anchor="middle">${v}%</text>`);
  }
  return (
    `<svg id="${escapeHtml(opts.id)}" class="chart" role="img" aria-label="${escapeHtml(opts.title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">` +
    `<title>${escapeHtml(opts.title)}</title>${parts.join('')}</svg>`
  );
}
