import * as path from 'node:path';
import { LANGUAGE_IDS, type LanguageId } from '../parse/grammars';
import { goAdapter } from './go';
import { juliaAdapter } from './julia';
import { phpAdapter } from './php';
import { rubyAdapter } from './ruby';
import { rustAdapter } from './rust';
import type { LanguageAdapter } from './types';

export { LANGUAGE_IDS };
export type { LanguageId, LanguageAdapter };

const ADAPTERS: Record<LanguageId, LanguageAdapter> = {
  rust: rustAdapter,
  go: goAdapter,
  php: phpAdapter,
  ruby: rubyAdapter,
  julia: juliaAdapter,
};

export function adapterFor(id: LanguageId): LanguageAdapter {
  return ADAPTERS[id];
}

const BY_EXTENSION = new Map<string, LanguageAdapter>(
  Object.values(ADAPTERS).flatMap((a) => a.extensions.map((e) => [e, a] as const)),
);

export function adapterForPath(file: string): LanguageAdapter | undefined {
  return BY_EXTENSION.get(path.extname(file).toLowerCase());
}

/** `Go`, `golang`, `jl`… -> a language id, or undefined. Records and flags spell languages freely. */
export function parseLanguageId(name: string): LanguageId | undefined {
  const n = name.trim().toLowerCase();
  const aliases: Record<string, LanguageId> = { golang: 'go', rs: 'rust', jl: 'julia', rb: 'ruby' };
  if ((LANGUAGE_IDS as readonly string[]).includes(n)) return n as LanguageId;
  return aliases[n];
}

/** "Rust, Go, PHP, Ruby or Julia": every registered language's name, as one choice (for messages). */
export function languageChoice(): string {
  const names = Object.values(ADAPTERS).map((a) => a.displayName);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : names.join('');
}
