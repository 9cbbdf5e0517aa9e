import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { REPO_ROOT } from '../helpers/paths';

const ENGINE = path.join(REPO_ROOT, 'src', 'engine');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** A relative specifier as the compiler resolves it to a .ts source: `x` -> `x.ts` or `x/index.ts`. */
function resolve(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  return [base, `${base}.ts`, path.join(base, 'index.ts')].find((p) => p.endsWith('.ts') && fs.existsSync(p));
}

/**
 * Every relative import of each file: `import`, `import type`, `export … from`, side-effect imports and
 * `import()`. The compiler's own pre-processor reads them, so comments and strings are not mistaken for imports.
 */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((s) => s.startsWith('.'))
      .map((s) => resolve(file, s))
      .filter((p): p is string => p !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * One cycle (as a path `a -> b -> … -> a`) per strongly connected component that has one (Tarjan),
 * so a report names every tangle without listing each of its many loops.
 */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];

  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);

  return components.map((component) => cycleWithin(graph, new Set(component)));
}

/** A shortest loop back to the component's first file (breadth-first inside the component). */
function cycleWithin(graph: ReadonlyMap<string, readonly string[]>, members: ReadonlySet<string>): string[] {
  const start = [...members].sort()[0];
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const loop = [start];
        for (let u: string | undefined = v; u !== undefined && u !== start; u = parent.get(u)) loop.unshift(u);
        loop.unshift(start);
        return loop;
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

describe('import cycles', () => {
  it('finds a cycle, with its path, in a small graph (the check can fail)', () => {
    const graph = new Map<string, string[]>([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ]);
    const cycles = cyclesOf(graph).map((c) => c.join(' -> ')).sort();
    assert.deepEqual(cycles, ['a -> b -> c -> a', 'e -> e']);
  });

  it('reads `import type` and `export … from` as edges', () => {
    const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'cycles-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b';\nexport type A = B;\n");
      fs.mkdirSync(path.join(dir, 'b'));
      fs.writeFileSync(path.join(dir, 'b', 'index.ts'), "export type { A } from '../a';\nexport type B = 1;\n");
      const graph = importGraph([path.join(dir, 'a.ts'), path.join(dir, 'b', 'index.ts')]);
      assert.equal(cyclesOf(graph).length, 1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('src/engine has no import cycle (a language folder imports shared types, never the registries that look it up)', () => {
    const cycles = cyclesOf(importGraph(sources(ENGINE))).map((c) => c.map((f) => path.relative(ENGINE, f)).join(' -> '));
    assert.deepEqual(cycles, []);
  });
});
