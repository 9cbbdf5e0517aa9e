/// <reference lib="dom" />
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { comparisonHtml, reportHtml } from '../../src/engine/report/html';
import { buildComparisonReport, buildReport } from '../../src/engine/report/report';
import { toSlot } from '../../src/engine/report/slots';
import { ALL } from '../../src/engine/report/tables';
import type { ResultRecord } from '../../src/engine/store/results';
import { REPO_ROOT } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';
import { result, run } from '../helpers/report-fixtures';

describe('report: the HTML file in headless Chromium', function () {
  this.timeout(120_000);
  const CHROMIUM = '/usr/bin/chromium';
  let dir: string;
  before(function () {
    if (!fs.existsSync(CHROMIUM) || !hasTool(CHROMIUM, ['--version'])) skipBecause(this, `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`);
    // Kept after the run (a page and two screenshots, about 1 MB) so the printed paths can be opened.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-report-html-'));
  });

  /** Real results from the fixtures (test/data/reports/fixture-results.jsonl) plus constructed ones for a second mode and a baseline. */
  function dataset(): ResultRecord[] {
    const real = fs
      .readFileSync(path.join(REPO_ROOT, 'test', 'data', 'reports', 'fixture-results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ResultRecord);
    const julia = Array.from({ length: 8 }, (_, i) =>
      result({ language: 'julia', repo: 'MiniStats.jl', task: i, passed: i < 3, compiled: i < 6, cov: i < 3 ? [4, 5] : [0, 5], invoked: i !== 2, mode: 'file', failure: i < 3 ? null : i < 6 ? 'api-hallucination' : 'syntactic-compilation' }),
    );
    const baseline = run('go', 4, 1, { repo: 'inventory-go', model: null, provider: 'baseline', baseline: true, mode: 'file' }, 100);
    return [...real, ...julia, ...baseline];
  }

  async function launch() {
    const { chromium } = await import('playwright-core');
    return chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }

  it('renders the tables and charts, offline, in light and dark, and screenshots to a non-blank PNG', async () => {
    const results = dataset();
    const report = buildReport(results, { label: 'Fixture benchmark' });
    const file = path.join(dir, 'report.html');
    fs.writeFileSync(file, reportHtml(report));
    const html = fs.readFileSync(file, 'utf8');
    assert.doesNotMatch(html, /<script|<link|@import|url\(|src=/i, 'nothing loaded from elsewhere');

    const browser = await launch();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const requests: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith('file:')) requests.push(r.url());
      });
      await page.goto('file://' + file);
      assert.deepEqual(requests, [], 'the page fetches nothing');
      assert.equal(await page.title(), 'Fixture benchmark');
      assert.equal(await page.locator('h1').textContent(), 'Fixture benchmark');
      const headings = await page.locator('h2').allTextContents();
      for (const h of ['Per language', 'Per context mode', 'Per model and mode', 'Failure categories', 'IR vs TPR disagreement', 'Per repository']) assert.ok(headings.includes(h), `${h} in ${headings.join(', ')}`);

      const languages = [...new Set(results.map((r) => r.xrt.language))].sort();
      const rowLangs = await page.locator('#table-languages tbody tr').evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.language));
      assert.deepEqual(rowLangs, [...languages, ALL]);
      // The table's TPR cell shows what the report computed for that language.
      for (const row of report.tables.languages.rows) {
        const cell = await page.locator(`#table-languages tbody tr[data-language="${row.group.language}"] td[data-metric="tpr"]`).textContent();
        assert.ok(cell!.startsWith(row.metrics.tpr!.value.toFixed(1)), `${row.group.language}: ${cell}`);
      }

      // Language chart: a bar per (language incl. all, metric) with a value, each with a whisker.
      const bars = await page.locator('#chart-languages rect.bar').evaluateAll((rs) => rs.map((r) => ({ g: r.getAttribute('data-group'), s: r.getAttribute('data-series'), v: Number(r.getAttribute('data-value')), h: (r as SVGRectElement).getBBox().height })));
      assert.equal(bars.length, (languages.length + 1) * 3);
      assert.deepEqual([...new Set(bars.map((b) => b.s))].sort(), ['cov', 'ir', 'tpr']);
      assert.equal(await page.locator('#chart-languages g.whisker').count(), bars.length);
      const tallest = bars.reduce((a, b) => (b.v > a.v ? b : a));
      assert.ok(bars.every((b) => b.h <= tallest.h + 0.01), 'the largest value is the tallest bar');
      const goTpr = bars.find((b) => b.g === 'go' && b.s === 'tpr')!;
      assert.equal(goTpr.v, report.tables.languages.rows.find((r) => r.group.language === 'go')!.metrics.tpr!.value);

      // Failure chart: stacked segments per column summing to 100%, and a legend entry per category shown.
      const segs = await page.locator('#chart-failures rect.segment').evaluateAll((rs) => rs.map((r) => ({ g: r.getAttribute('data-group'), v: Number(r.getAttribute('data-value')) })));
      const perColumn = new Map<string, number>();
      for (const s of segs) perColumn.set(s.g!, (perColumn.get(s.g!) ?? 0) + s.v);
      assert.equal(perColumn.size, report.tables.failures.columns.length);
      for (const [g, total] of perColumn) assert.ok(Math.abs(total - 100) < 0.1, `${g}: ${total}`);
      assert.ok((await page.locator('#chart-failures .legend-item').count()) >= 5);

      // The baseline is marked as a lower bound.
      assert.match((await page.locator('#baseline-notice').textContent())!, /lower bound/);
      // The baseline's only (model, mode, language) row: go in file mode.
      assert.equal(await page.locator('#table-models tbody tr[data-model="baseline"][data-baseline="all"]').count(), 1);

      const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const shot = path.join(dir, 'report.png');
      await page.screenshot({ path: shot, fullPage: true });
      process.stdout.write(`      screenshot: ${shot}\n`);
      await page.emulateMedia({ colorScheme: 'dark' });
      const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.notEqual(light, dark, 'the page follows the dark scheme');
      const darkShot = path.join(dir, 'report-dark.png');
      await page.screenshot({ path: darkShot, fullPage: true });
      process.stdout.write(`      screenshot: ${darkShot}\n`);

      for (const p of [shot, darkShot]) {
        const png = fs.readFileSync(p);
        assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
        // Let Chromium decode it: a blank page has one colour, the report has text, bars and cells.
        const probe = await browser.newPage();
        const stats = await probe.evaluate(async (dataUrl) => {
          const img = new Image();
          img.src = dataUrl;
          await img.decode();
          const canvas = document.createElement('canvas');
          canvas.width = img.width;
          canvas.height = img.height;
          const ctx = canvas.getContext('2d')!;
          ctx.drawImage(img, 0, 0);
          const data = ctx.getImageData(0, 0, img.width, img.height).data;
          const colours = new Set<number>();
          let differing = 0;
          const [r0, g0, b0] = [data[0], data[1], data[2]];
          for (let i = 0; i < data.length; i += 4) {
            colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
            if (data[i] !== r0 || data[i + 1] !== g0 || data[i + 2] !== b0) differing++;
          }
          return { width: img.width, height: img.height, colours: colours.size, differing: differing / (data.length / 4) };
        }, `data:image/png;base64,${png.toString('base64')}`);
        await probe.close();
        assert.ok(stats.width >= 1000 && stats.height > 900, JSON.stringify(stats));
        assert.ok(stats.colours > 20, `non-blank: ${JSON.stringify(stats)}`);
        assert.ok(stats.differing > 0.02, `non-blank: ${JSON.stringify(stats)}`);
      }
    } finally {
      await browser.close();
    }
  });

  it('renders a comparison with its table and chart', async () => {
    const a = run('go', 30, 6).concat(run('php', 30, 10));
    const b = run('go', 30, 18).concat(run('php', 30, 11));
    const cmp = buildComparisonReport({ label: 'model-a', slots: a.map(toSlot) }, { label: 'model-b', slots: b.map(toSlot) }, { resamples: 1000 });
    const file = path.join(dir, 'compare.html');
    fs.writeFileSync(file, comparisonHtml(cmp));
    const browser = await launch();
    try {
      const page = await browser.newPage();
      await page.goto('file://' + file);
      assert.equal(await page.locator('h1').textContent(), 'Comparison: model-a vs model-b');
      const rows = await page.locator('#table-comparison tbody tr').evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.language));
      assert.deepEqual(rows, ['go', 'php', ALL]);
      const goSig = await page.locator('#table-comparison tr[data-language="go"] td:last-child').textContent();
      const go = cmp.comparison.rows.find((r) => r.language === 'go')!;
      assert.equal(go.test.onlyB, 12);
      assert.ok(go.significant);
      assert.match(goSig!, /\*+/);
      // TPR of A and B for go, php and all.
      assert.equal(await page.locator('#chart-comparison rect.bar').count(), 6);
      assert.equal(await page.locator('#table-languages-a tbody tr').count(), 3);
    } finally {
      await browser.close();
    }
  });
});
