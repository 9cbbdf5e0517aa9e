import type { LanguageEditor } from '../execution-types';

/** PHP in the editor. An accepted test stays where the run put it: named after its class, as PHPUnit requires. */
export const phpEditor: LanguageEditor = {
  languageIds: ['php'],
  serverExtension: { name: 'PHP Intelephense', id: 'bmewburn.vscode-intelephense-client' },
};
