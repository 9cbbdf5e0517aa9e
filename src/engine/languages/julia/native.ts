import * as fs from 'node:fs';
import * as path from 'node:path';
import type { NativeTestCommand } from '../execution-types';
import { juliaProjectName } from './project';

/**
 * The test included after `using <Package>` under `julia --code-coverage=user` in a person's checkout
 * (what `Pkg.test(coverage=true)` does, without re-resolving the environment): the benchmark's reference.
 * The test goes to `test/…jl`, where the toolchain places it.
 */
export const juliaNative: NativeTestCommand = {
  mark: (code, marker) => `# ${marker}\n${code}`,

  async prepare({ projectRoot, testCode }) {
    const dir = path.join(projectRoot, 'test');
    const made = !fs.existsSync(dir);
    fs.mkdirSync(dir, { recursive: true });
    const testFile = path.join(dir, 'xrepotest_native.jl');
    fs.writeFileSync(testFile, testCode);
    const script = `using Test; using ${juliaProjectName(projectRoot)}; @testset "native" begin include(${JSON.stringify(testFile)}) end`;
    const run = (coverage: boolean) => ({
      argv: ['julia', '--startup-file=no', `--project=${projectRoot}`, ...(coverage ? ['--code-coverage=user'] : []), '-e', script],
      cwd: projectRoot,
    });
    return {
      testFile,
      withCoverage: [run(true)],
      plain: [run(false)],
      // Julia leaves `<file>.<pid>.cov` beside each covered source file.
      restore: () => {
        if (made) fs.rmSync(dir, { recursive: true, force: true });
        else fs.rmSync(testFile, { force: true });
        removeCovFiles(projectRoot);
      },
    };
  },
};

function removeCovFiles(root: string): void {
  for (const e of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && /\.\d+\.cov$/.test(e.name)) fs.rmSync(path.join(e.parentPath, e.name), { force: true });
  }
}
