/** Provider `vscode-lm`'s words without `vscode`. */

/** What the user reads when no chat model answers to the setting. */
export function noChatModelMessage(selector: string, available: string[]): string {
  const which = selector.trim() ? `no chat model matches xrepotest.model "${selector}"` : 'the editor offers no chat model';
  const offered = available.length ? ` (the editor offers: ${available.join(', ')})` : ': install and sign in to a chat extension (GitHub Copilot, or another that provides models)';
  return `vscode-lm: ${which}${offered}; or choose another xrepotest.provider`;
}
