import type { LanguageEditor } from '../execution-types';

/** Rust in the editor. An accepted test joins the focal file as a test module named after the function. */
export const rustEditor: LanguageEditor = {
  languageIds: ['rust'],
  serverExtension: { name: 'rust-analyzer', id: 'rust-lang.rust-analyzer' },
  acceptedPlacement: (run) => ({ relPath: run.focalRelPath, code: run.code.replace(/\bmod xrepotest_[A-Za-z0-9_]+/, `mod ${run.fn}_tests`), append: true, notes: [] }),
};
