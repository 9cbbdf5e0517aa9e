import type { Node } from 'web-tree-sitter';

/** Attribute text right above a node (`#[test]`, `#[cfg(test)]`). */
function attributesAbove(n: Node): string {
  let text = '';
  for (let p = n.previousNamedSibling; p && (p.type === 'attribute_item' || p.type === 'line_comment'); p = p.previousNamedSibling) text += p.text;
  return text;
}

/** A `#[test]` function or a `#[cfg(test)]` module: test code inside a source file, never context. */
export function isRustTestCodeNode(n: Node): boolean {
  return (n.type === 'mod_item' || n.type === 'function_item') && /#\[(cfg\(test\)|test)\]/.test(attributesAbove(n));
}
