import type { LanguageEditor } from '../execution-types';

const join = (dir: string, name: string): string => (dir === '.' ? name : `${dir}/${name}`);

/** Julia in the editor. An accepted test is `test_<function>.jl` in the test folder; runtests.jl must include it (a note says so). */
export const juliaEditor: LanguageEditor = {
  languageIds: ['julia'],
  serverExtension: { name: 'Julia', id: 'julialang.language-julia' },
  acceptedPlacement: (run) => ({ relPath: join(run.dir, `test_${run.fn}.jl`), code: run.code, append: false, notes: [`add include("test_${run.fn}.jl") to ${join(run.dir, 'runtests.jl')}`] }),
};
