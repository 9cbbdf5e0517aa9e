import { stripVTControlCharacters } from 'node:util';

/**
 * C0 controls but tab and newline, DEL, C1 controls, and the Unicode bidirectional overrides and
 * isolates (which reorder what a reader sees, as in "Trojan Source"). Left after Node's own
 * escape-sequence stripper, they could still ring, erase, move the cursor (a bare ESC, CR, BS) or
 * start a sequence a terminal interprets (0x9B is a one-byte CSI).
 */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * Text that came from outside (a provider's error message, a model or repository name, a reason
 * quoting a test's output) made safe to print on a terminal: escape sequences (colours, cursor
 * moves, OSC titles and hyperlinks, clipboard writes) removed whole, other control characters
 * removed. Newlines and tabs stay.
 */
export function forTerminal(text: string): string {
  return stripVTControlCharacters(String(text)).replace(CONTROL, '');
}
