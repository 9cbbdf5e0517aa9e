import type { LanguageId } from '../parse/grammars';

/** Fence tags taken as the task's language (lower-cased); an untagged fence counts too. */
const FENCE_TAGS: Record<LanguageId, ReadonlySet<string>> = {
  rust: new Set(['rust', 'rs']),
  go: new Set(['go', 'golang']),
  php: new Set(['php']),
  ruby: new Set(['ruby', 'rb']),
  julia: new Set(['julia', 'jl']),
};

/** The release joins at most this many blocks (preprocess_utils.py). */
export const MAX_BLOCKS = 10;

export interface FencedBlock {
  /** The info string's first word, lower-cased ('' when untagged). */
  tag: string;
  body: string;
  closed: boolean;
}

const OPENING = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;

/**
 * The fenced blocks of a Markdown reply, in order (CommonMark's rules, simplified): a fence opens with
 * three or more backticks or tildes and closes on a line of at least as many of the same character.
 * Line-based on purpose: the release's regex lets a stray ``` inside code (a Rust doc example, a PHP
 * heredoc) end a block in the middle of a line.
 */
export function fencedBlocks(reply: string): FencedBlock[] {
  const lines = reply.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPENING.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    const closing = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
    const body: string[] = [];
    let closed = false;
    for (i++; i < lines.length; i++) {
      if (closing.test(lines[i])) {
        closed = true;
        break;
      }
      body.push(lines[i]);
    }
    blocks.push({ tag: open[2].toLowerCase(), body: body.join('\n'), closed });
  }
  return blocks;
}

/**
 * The test in a model's reply, as the release extracts it: every fenced block in the task's language
 * (or untagged), joined with a blank line, in order, at most ten; blocks of other languages (a
 * ```bash block with `go test`, say) are not test code. A reply cut off inside its last block still
 * yields that block. With no block of the language, the whole reply, trimmed, is the test.
 */
export function extractTest(reply: string, language: LanguageId): string {
  const tags = FENCE_TAGS[language];
  const bodies = fencedBlocks(reply)
    .filter((b) => b.tag === '' || tags.has(b.tag))
    .map((b) => trimBlankLines(b.body))
    .filter((b) => b !== '')
    .slice(0, MAX_BLOCKS);
  if (bodies.length === 0) return reply.trim();
  return language === 'php' ? joinPhpBlocks(bodies) : bodies.join('\n\n');
}

function trimBlankLines(text: string): string {
  return text.replace(/^(?:[ \t]*\r?\n)+/, '').replace(/\s+$/, '');
}

const OPEN_TAG = /^\s*<\?php\b\s*/;
const STRICT_TYPES = /^\s*declare\s*\(\s*strict_types\s*=\s*1\s*\)\s*;[ \t]*(?:\r?\n)?/;

/**
 * PHP blocks joined into one file: only the first block keeps its `<?php` (another would be a parse
 * error) and its `declare(strict_types=1);` (it must be the file's first statement); a closing `?>`
 * at the end of a block would turn the next block into HTML output, so it goes.
 */
function joinPhpBlocks(blocks: string[]): string {
  const parts = blocks.map((b, i) => {
    let code = b.replace(/\?>\s*$/, '').replace(/\s+$/, '');
    if (i > 0 && OPEN_TAG.test(code)) {
      code = code.replace(OPEN_TAG, '');
      code = code.replace(STRICT_TYPES, '');
    }
    return code;
  });
  return stripDocblockAfterDeclare(parts.join('\n\n'));
}

/**
 * The release's PHP post-processing (preprocess_utils.py): a docblock between
 * `declare(strict_types=1);` and `namespace` is removed; the blank line between them is kept.
 */
export function stripDocblockAfterDeclare(code: string): string {
  return code.replace(
    /(declare\s*\(\s*strict_types\s*=\s*1\s*\)\s*;)(\s*)(?:\/\*\*[\s\S]*?\*\/\s*)+(?=namespace\b)/,
    (_m, declare: string, space: string) => `${declare}${space.includes('\n\n') ? '\n\n' : space || '\n'}`,
  );
}
