import * as fs from 'node:fs';
import * as path from 'node:path';
import type { NativeTestCommand } from '../execution-types';
import { renameIdentifiers, testFunctionNames } from './collisions';

/**
 * `go test -count=1 -covermode=count -coverprofile=… -run … ./pkg` in a person's checkout, the test in
 * a `_test.go` file beside the focal file (where the toolchain puts it too): the benchmark's reference.
 * Their own GOCACHE stays warm between rounds; `-count=1` only turns off the cached test result.
 */
export const goNative: NativeTestCommand = {
  // A line comment above the package clause: allowed before `//go:build` lines too.
  mark: (code, marker) => `// ${marker}\n${code}`,

  async prepare({ projectRoot, focalFile, testCode, outDir }) {
    const testFile = path.join(path.dirname(focalFile), 'xrepotest_native_test.go');
    // A person names a new test so it does not clash with the package's (a model's TestStatus often
    // does): the test functions get a suffix, as the toolchain's repair renames them after a clash.
    const original = await testFunctionNames(testCode);
    const renames = new Map(original.map((n) => [n, `${n}_xrtNative`]));
    const code = (await renameIdentifiers(testCode, renames)) ?? testCode;
    fs.writeFileSync(testFile, code);
    const names = await testFunctionNames(code);
    const run = names.length ? `^(${names.join('|')})$` : '^$';
    const rel = path.relative(projectRoot, path.dirname(focalFile)).split(path.sep).join('/');
    const pkg = rel ? `./${rel}` : '.';
    // Offline and on the installed toolchain, as the scored run is (its GOFLAGS/GOPROXY/GOTOOLCHAIN).
    const env = { GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local' };
    const profile = path.join(outDir, 'cover.out');
    return {
      testFile,
      report: profile,
      withCoverage: [{ argv: ['go', 'test', '-count=1', '-covermode=count', `-coverprofile=${profile}`, '-run', run, pkg], cwd: projectRoot, env }],
      plain: [{ argv: ['go', 'test', '-count=1', '-run', run, pkg], cwd: projectRoot, env }],
      restore: () => fs.rmSync(testFile, { force: true }),
    };
  },
};
