import type { LanguageEditor } from '../execution-types';

const join = (dir: string, name: string): string => (dir === '.' ? name : `${dir}/${name}`);

/** Ruby in the editor. An accepted spec is `<file>_<function>_spec.rb` in the spec folder the run used. */
export const rubyEditor: LanguageEditor = {
  languageIds: ['ruby'],
  serverExtension: { name: 'Ruby LSP', id: 'Shopify.ruby-lsp' },
  acceptedPlacement: (run) => ({ relPath: join(run.dir, `${run.focalBase}_${run.fn}_spec.rb`), code: run.code, append: false, notes: [] }),
};
