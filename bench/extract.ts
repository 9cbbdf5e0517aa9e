/**
 * Extraction throughput next to raw tree-sitter parse throughput, per language, on the same files in
 * one run: `npm run bench:extract -- [repo dirs…]` (default: the fixtures). Prints MB/s for both and
 * their ratio; the ratio is what the engine's own work (walking, reading, filters, records) costs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { extractRepository } from '../src/engine/extract/extract';
import { listSourceFiles, readSourceText } from '../src/engine/extract/files';
import { LANGUAGE_IDS, type LanguageId } from '../src/engine/parse/grammars';
import { parseWithDeadline } from '../src/engine/parse/parse';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const fixtures = path.join(__dirname, '..', 'test', 'fixtures');
  const repos = args.length
    ? args
    : fs.readdirSync(fixtures).filter((d) => d !== 'expected').map((d) => path.join(fixtures, d));
  console.log(`repositories: ${repos.join(', ')}`);
  console.log(`rounds: ${ROUNDS} (median shown)\n`);
  console.log('language  files      MB   parse MB/s   extract MB/s   extract/parse   tasks');
  for (const lang of LANGUAGE_IDS) {
    const only = new Set<LanguageId>([lang]);
    const texts: string[] = [];
    for (const repo of repos) {
      for (const f of listSourceFiles(repo, only).files) {
        const r = readSourceText(f.absPath);
        if (r.kind === 'text' && f.size <= 2 * 1024 * 1024) texts.push(r.text);
      }
    }
    if (!texts.length) continue;
    const mb = texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / 1e6;
    await parseWithDeadline(lang, texts[0], 10_000).then((p) => 'tree' in p && p.tree.delete()); // warm-up
    const parseTimes: number[] = [];
    const extractTimes: number[] = [];
    let tasks = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the two so drift in machine load hits both alike.
      let t0 = process.hrtime.bigint();
      for (const text of texts) {
        const p = await parseWithDeadline(lang, text, 10_000);
        if ('tree' in p) p.tree.delete();
      }
      parseTimes.push(Number(process.hrtime.bigint() - t0) / 1e9);
      t0 = process.hrtime.bigint();
      tasks = 0;
      for (const repo of repos) {
        const r = await extractRepository(repo, { languages: [lang], repository: { name: path.basename(repo), url: repo, commit: null } });
        tasks += r.tasks.length;
      }
      extractTimes.push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
    const parseRate = mb / median(parseTimes);
    const extractRate = mb / median(extractTimes);
    console.log(
      `${lang.padEnd(8)} ${String(texts.length).padStart(6)} ${mb.toFixed(2).padStart(7)} ${parseRate.toFixed(2).padStart(12)} ${extractRate
        .toFixed(2)
        .padStart(14)} ${(extractRate / parseRate).toFixed(2).padStart(15)} ${String(tasks).padStart(7)}`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
