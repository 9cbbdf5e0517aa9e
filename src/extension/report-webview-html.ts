/**
 * The run's report.html as a webview's content. The report is static HTML with inline SVG and one
 * `<style>` element: no script, no `style=` attribute, nothing fetched. So the policy allows exactly
 * that element (by nonce) and nothing else. No `vscode` import: unit tests load this module.
 */
export function reportWebviewHtml(reportHtml: string, nonce: string): string {
  if (!/^[A-Za-z0-9+/=]{16,}$/.test(nonce)) throw new Error('a nonce of 16 or more base64 characters is needed');
  const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'">`;
  const withNonce = reportHtml.replace(/<style(?=[\s>])/g, `<style nonce="${nonce}"`);
  // The policy goes first in <head>, before anything it governs.
  return /<head[^>]*>/i.test(withNonce) ? withNonce.replace(/<head[^>]*>/i, (head) => `${head}\n${csp}`) : `${csp}\n${withNonce}`;
}
