import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/* Shared by test/unit/hostile-runs.test.ts and test/integration/hostile-runs.test.ts. */

export const writeJsonl = (file: string, rows: unknown[]): void => fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');

/** Call inside a `describe`: a fresh temporary directory (named `<prefix>…`) for each test, handed to `set`, removed after it. */
export function tmpDirPerTest(prefix: string, set: (dir: string) => void): void {
  let dir = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    set(dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
}
