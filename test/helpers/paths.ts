import * as path from 'node:path';

/** The repository root, from the compiled test under out/test/… */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');
export const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

export function fixture(name: string): string {
  return path.join(FIXTURES, name);
}
