import type { LspContext } from '../../src/engine/context/types';
import type { LanguageId } from '../../src/engine/parse/grammars';

/* Shared by test/unit/prompt.test.ts and test/integration/prompt.test.ts. */

/** One kept task per fixture language (a function in a file with a Rust test module, methods in classes…). */
export const CASES: Array<{ lang: LanguageId; dir: string; fn: string }> = [
  { lang: 'rust', dir: 'geometry-rs', fn: 'classify_triangle' },
  { lang: 'go', dir: 'inventory-go', fn: 'Restock' },
  { lang: 'php', dir: 'textkit-php', fn: 'slugify' },
  { lang: 'ruby', dir: 'bookshelf-rb', fn: 'search' },
  { lang: 'julia', dir: 'MiniStats.jl', fn: 'trimmed_mean' },
];

/** Fixed LSP context per language, as the LSP builder would hand it over (with one duplicate each). */
export const LSP: Record<LanguageId, LspContext> = {
  rust: {
    argumentDefinitions: [],
    calleeDefinitions: ['pub enum TriangleKind {\n    Invalid,\n    Degenerate,\n    Equilateral,\n    RightIsosceles,\n    Isosceles,\n    Right,\n    Scalene,\n}'],
    conditionReferences: ['pub fn is_finite(self) -> bool', 'pub enum TriangleKind {\n    Invalid,\n    Degenerate,\n    Equilateral,\n    RightIsosceles,\n    Isosceles,\n    Right,\n    Scalene,\n}'],
  },
  go: {
    argumentDefinitions: ['type Inventory struct {\n\titems map[string]*Item\n\tlog   []string\n}'],
    calleeDefinitions: ['func Errorf(format string, a ...any) error', 'func Sprintf(format string, a ...any) string'],
    conditionReferences: [
      'var ErrInvalidQuantity = errors.New("inventory: invalid quantity")',
      'type Item struct {\n\tSKU      string\n\tName     string\n\tQuantity int\n\tReorder  int\n\tCapacity int\n\tExpires  int\n}',
      'type Inventory struct {\n\titems map[string]*Item\n\tlog   []string\n}',
    ],
  },
  php: {
    argumentDefinitions: [],
    calleeDefinitions: ['abstract class AbstractTransformer implements Transformer\n{\n    protected function transliterate(string $text): string\n}'],
    conditionReferences: ['private int $maxLength;', 'private string $separator;', 'private int $maxLength;'],
  },
  ruby: {
    argumentDefinitions: [],
    calleeDefinitions: ['def tokens(text)\n  text.to_s.downcase.scan(/[a-z0-9]+/)\nend', 'def available?\n  copies.positive?\nend'],
    conditionReferences: ['def available?\n  copies.positive?\nend'],
  },
  julia: {
    argumentDefinitions: [],
    calleeDefinitions: ['function cut_count(len, f)\n    cut = floor(Int, len * f)\n    return cut\nend'],
    conditionReferences: ['fraction::Real', 'fraction::Real'],
  },
};
