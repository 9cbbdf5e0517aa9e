import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { LineHits } from '../types';
import { isSameFile, recordMax } from './paths';

type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseAttributeValue: false,
  isArray: (name) => ['package', 'file', 'line', 'class'].includes(name),
});

// Clover's statement kinds; `method` lines mark a declaration (its count is the method's), not code.
const STATEMENT_TYPES = new Set(['stmt', 'cond']);

function elements(node: XmlNode, key: string): XmlNode[] {
  const v = node[key];
  const arr = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return arr.filter((x): x is XmlNode => !!x && typeof x === 'object');
}

/** Every <file> element, wherever it sits: PHPUnit puts them under <project>, others under <package>. */
function files(node: XmlNode, out: XmlNode[]): void {
  out.push(...elements(node, 'file'));
  for (const key of ['coverage', 'project', 'package']) for (const child of elements(node, key)) files(child, out);
}

/**
 * Clover XML (PHPUnit `--coverage-clover`) -> hits per line for `absFile`. PHPUnit's `count` is the
 * number of tests that covered the line, not executions; it is > 0 exactly when the line ran.
 */
export function parseClover(xml: string, absFile: string): LineHits {
  const hits: LineHits = new Map();
  if (!xml.trim() || XMLValidator.validate(xml) !== true) return hits;
  const all: XmlNode[] = [];
  files(parser.parse(xml) as XmlNode, all);
  for (const file of all) {
    if (!isSameFile(String(file['@_name'] ?? ''), absFile)) continue;
    for (const line of elements(file, 'line')) {
      if (!STATEMENT_TYPES.has(String(line['@_type']))) continue;
      recordMax(hits, Number(line['@_num']), Number(line['@_count']));
    }
  }
  return hits;
}

/**
 * The executable lines of every file in a Clover report and how many of them ran, each (file, line)
 * once: what PHPUnit's text summary counts as `Lines: 61.90% (39/63)`. Null for a report that does not parse.
 */
export function cloverLineTotals(xml: string): { executed: number; executable: number } | null {
  if (!xml.trim() || XMLValidator.validate(xml) !== true) return null;
  const all: XmlNode[] = [];
  files(parser.parse(xml) as XmlNode, all);
  const lines = new Map<string, boolean>();
  for (const file of all) {
    for (const line of elements(file, 'line')) {
      if (!STATEMENT_TYPES.has(String(line['@_type']))) continue;
      const key = `${String(file['@_name'] ?? '')}\0${String(line['@_num'])}`;
      lines.set(key, (lines.get(key) ?? false) || Number(line['@_count']) > 0);
    }
  }
  return { executed: [...lines.values()].filter(Boolean).length, executable: lines.size };
}
