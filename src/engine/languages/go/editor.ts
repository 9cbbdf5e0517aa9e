import type { LanguageEditor } from '../execution-types';

const join = (dir: string, name: string): string => (dir === '.' ? name : `${dir}/${name}`);

/** Go in the editor. An accepted test is `<file>_<function>_test.go` beside the focal file's package. */
export const goEditor: LanguageEditor = {
  languageIds: ['go'],
  serverExtension: { name: 'Go', id: 'golang.go' },
  acceptedPlacement: (run) => ({ relPath: join(run.dir, `${run.focalBase}_${run.fn}_test.go`), code: run.code, append: false, notes: [] }),
};
