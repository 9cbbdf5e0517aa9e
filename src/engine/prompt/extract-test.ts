import { adapterFor } from '../languages';
import type { LanguageId } from '../parse/grammars';

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
  // The language's fence tags and, where blocks cannot simply be concatenated, its way of joining them (PHP).
  const { fenceTags: tags, joinBlocks } = adapterFor(language).prompt;
  const bodies = fencedBlocks(reply)
    .filter((b) => b.tag === '' || tags.has(b.tag))
    .map((b) => trimBlankLines(b.body))
    .filter((b) => b !== '')
    .slice(0, MAX_BLOCKS);
  if (bodies.length === 0) return reply.trim();
  return joinBlocks ? joinBlocks(bodies) : bodies.join('\n\n');
}

function trimBlankLines(text: string): string {
  return text.replace(/^(?:[ \t]*\r?\n)+/, '').replace(/\s+$/, '');
}
