import type { LanguageId } from '../../src/engine/parse/grammars';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { byName, functionsOf } from './snippets';

/* Shared by test/unit/mutation.test.ts and test/integration/mutation.test.ts. */

export const LANGUAGES: LanguageId[] = ['go', 'rust', 'php', 'ruby', 'julia'];
export const EXT: Record<LanguageId, string> = { go: 'go', rust: 'rs', php: 'php', ruby: 'rb', julia: 'jl' };

/** A task for one function of a snippet, as extraction would record it. */
export async function snippetTask(language: LanguageId, source: string, name: string, filePath = `snippet/snippet.${EXT[language]}`): Promise<TaskRecord> {
  const fn = byName(await functionsOf(language, source), name);
  const lines = source.split('\n');
  return {
    task_id: name,
    function_name: name,
    file_path: filePath,
    focal_code: lines.slice(fn.startLine - 1, fn.endLine).join('\n'),
    file_content: source,
    language,
    function_component: { name, signature: fn.signature, start_line: fn.startLine, end_line: fn.endLine },
    metadata: { class_name: fn.className, class_signature: fn.classSignature },
  };
}
