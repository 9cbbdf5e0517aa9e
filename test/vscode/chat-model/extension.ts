import * as vscode from 'vscode';

/** What the model was asked: each request's messages as text, for the tests (`xrepotestTest.chatRequests`). */
const requests: Array<Array<{ role: string; text: string }>> = [];
/**
 * How it answers (`xrepotestTest.chatMode`): `pass` the passing test; `failThenPass` a failing test
 * first and the passing one when asked to repair (the conversation holds its earlier reply); `hang`
 * nothing until the request is cancelled.
 */
let mode: 'pass' | 'failThenPass' | 'hang' = 'pass';
/** Requests cancelled while hanging (`xrepotestTest.chatCancelled`). */
let cancelled = 0;
let pending = 0;


/** A Go test of the fixture's Status expecting `want` for an item out of stock ("out-of-stock" passes). */
function REPLY_OF(want: string): string {
  return REPLY.replace('"out-of-stock" {', `${want} {`);
}

/** The reply: a Go test of the fixture's Status that passes. */
const REPLY = [
  'Here is a test:',
  '',
  '```go',
  'package inventory',
  '',
  'import "testing"',
  '',
  'func TestStatusFromChatModel(t *testing.T) {',
  '\tif got := (Item{Quantity: 0}).Status(10); got != "out-of-stock" {',
  '\t\tt.Errorf("Status() = %q, want out-of-stock", got)',
  '\t}',
  '}',
  '```',
].join('\n');

const textOf = (m: vscode.LanguageModelChatMessage): string =>
  m.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');

export function activate(context: vscode.ExtensionContext): void {
  // Proposed API in VS Code 1.100 (chatProvider): not in @types/vscode, hence the loose types.
  const lm = vscode.lm as unknown as { registerChatModelProvider(id: string, provider: unknown, metadata: unknown): vscode.Disposable };
  context.subscriptions.push(
    lm.registerChatModelProvider(
      'xrepotest-echo',
      {
        async provideLanguageModelResponse(messages: vscode.LanguageModelChatMessage[], _options: unknown, _extensionId: string, progress: vscode.Progress<{ index: number; part: vscode.LanguageModelTextPart }>, token: vscode.CancellationToken) {
          requests.push(messages.map((m) => ({ role: m.role === vscode.LanguageModelChatMessageRole.User ? 'user' : 'assistant', text: textOf(m) })));
          if (mode === 'hang') {
            pending++;
            await new Promise<void>((resolve) => token.onCancellationRequested(() => resolve()));
            pending--;
            cancelled++;
            return;
          }
          if (token.isCancellationRequested) return;
          const repair = messages.some((m) => m.role === vscode.LanguageModelChatMessageRole.Assistant);
          progress.report({ index: 0, part: new vscode.LanguageModelTextPart(mode === 'failThenPass' && !repair ? REPLY_OF('"ok"') : REPLY) });
        },
        async provideTokenCount(text: string | vscode.LanguageModelChatMessage): Promise<number> {
          const s = typeof text === 'string' ? text : textOf(text);
          return Math.ceil(s.length / 4);
        },
      },
      { vendor: 'xrepotest-test', name: 'XRepoTest echo', family: 'xrepotest-echo', version: '1', maxInputTokens: 100_000, maxOutputTokens: 4096, isUserSelectable: true },
    ),
    vscode.commands.registerCommand('xrepotestTest.chatRequests', () => requests),
    vscode.commands.registerCommand('xrepotestTest.chatMode', (m: typeof mode) => void (mode = m)),
    vscode.commands.registerCommand('xrepotestTest.chatState', () => ({ pending, cancelled })),
  );
}
