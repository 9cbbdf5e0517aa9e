import type { Node } from 'web-tree-sitter';
import { field, named } from '../../parse/nodes';
import type { TaskRecord } from '../../tasks/record';
import { enclosing, indent, LITERAL, pascalCase, withFocalSite } from '../../generate/baseline/common';

/*
 * PHP baseline: a PHPUnit TestCase in the focal namespace, with the focal file's own `use` imports, so
 * every type name in the signature resolves as it does in the focal file. Required parameters get a
 * value per declared type (optional ones keep their defaults); the receiver is `new Class(…)` with
 * the constructor's required parameters built the same way, an anonymous class for a trait, and the
 * class itself for a static method. A class or interface we cannot build becomes a PHPUnit stub.
 */

const CLASS_LIKE = new Set(['class_declaration', 'trait_declaration', 'interface_declaration', 'enum_declaration']);
const MAX_DEPTH = 3;

interface ClassInfo {
  node: Node;
  abstract: boolean;
  constructor: Node | null;
}

function hasModifier(node: Node, type: string): boolean {
  return named(node).some((c) => c.type === type);
}

function requiredParameters(params: Node | null): Node[] {
  return (params ? named(params) : []).filter(
    (p) => (p.type === 'simple_parameter' || p.type === 'property_promotion_parameter') && !field(p, 'default_value'),
  );
}

function variableName(p: Node): string {
  return field(p, 'name')?.text.replace(/^\$/, '') ?? 'arg';
}

class PhpBuilder {
  private readonly classes = new Map<string, ClassInfo>();

  constructor(root: Node) {
    for (const c of root.descendantsOfType([...CLASS_LIKE])) {
      if (!c) continue;
      const name = field(c, 'name')?.text;
      if (!name) continue;
      const ctor = named(field(c, 'body') ?? c).find((m) => m.type === 'method_declaration' && field(m, 'name')?.text.toLowerCase() === '__construct') ?? null;
      this.classes.set(name.toLowerCase(), { node: c, abstract: hasModifier(c, 'abstract_modifier'), constructor: ctor });
    }
  }

  classInfo(name: string): ClassInfo | undefined {
    return this.classes.get(name.replace(/^.*\\/, '').toLowerCase());
  }

  /** An expression creating an object of a class declared in the focal file, or null. */
  instance(name: string, depth: number): string | null {
    const info = this.classInfo(name);
    if (!info || depth > MAX_DEPTH) return null;
    const args = this.argumentList(info.constructor ? field(info.constructor, 'parameters') : null, depth + 1);
    if (args === null) return null;
    if (info.constructor && named(info.constructor).some((c) => c.type === 'visibility_modifier' && c.text !== 'public')) return null;
    switch (info.node.type) {
      case 'trait_declaration':
        return `new class () {\n    use ${name};\n}`;
      case 'enum_declaration':
        return `${name}::cases()[0]`;
      case 'interface_declaration':
        return null;
      default:
        return info.abstract ? `new class (${args.join(', ')}) extends ${name} {\n}` : `new ${name}(${args.join(', ')})`;
    }
  }

  argumentList(params: Node | null, depth: number): string[] | null {
    const out: string[] = [];
    for (const p of requiredParameters(params)) {
      const type = field(p, 'type');
      out.push(type ? (this.valueOf(type, depth) ?? 'null') : 'null');
    }
    return out;
  }

  /** A value of a declared type; null when only `null` would do. */
  valueOf(type: Node, depth: number): string | null {
    switch (type.type) {
      case 'primitive_type':
        return this.primitive(type.text);
      case 'optional_type':
        return named(type)[0] ? this.valueOf(named(type)[0], depth) : null;
      case 'union_type':
      case 'intersection_type':
      case 'disjunctive_normal_form_type': {
        for (const member of named(type)) {
          const v = this.valueOf(member, depth);
          if (v !== null) return v;
        }
        return null;
      }
      case 'named_type':
        return this.ofClass(type.text, depth);
      default:
        return null;
    }
  }

  private primitive(text: string): string | null {
    switch (text.toLowerCase()) {
      case 'int':
        return LITERAL.int;
      case 'float':
        return LITERAL.float;
      case 'string':
        return `'${LITERAL.string}'`;
      case 'bool':
      case 'false':
        return 'false';
      case 'true':
        return 'true';
      case 'array':
      case 'iterable':
        return '[]';
      case 'callable':
        return 'static fn () => null';
      case 'object':
        return 'new \\stdClass()';
      default:
        return null; // mixed, null, void
    }
  }

  private ofClass(name: string, depth: number): string | null {
    const bare = name.replace(/^\\/, '').toLowerCase();
    if (bare === 'closure') return 'static fn () => null';
    if (bare === 'stdclass') return 'new \\stdClass()';
    if (/^datetime(immutable|interface)?$/.test(bare)) return `new \\DateTimeImmutable('2000-01-01')`;
    if (bare === 'self' || bare === 'static') return null;
    const built = this.instance(name, depth);
    if (built) return built;
    return `$this->createStub(${name}::class)`;
  }
}

/** A return type under which the call gives a value that is never null. */
function returnsNonNull(fn: Node): boolean {
  const type = field(fn, 'return_type');
  if (!type || type.type === 'optional_type') return false;
  return !/\b(void|never|null|mixed)\b/i.test(type.text);
}

/** The focal code alone as a PHP file: inside its namespace and, for a method, its class signature. */
function standalone(task: TaskRecord): string {
  const ns = task.metadata.namespace ? `namespace ${task.metadata.namespace as string};\n` : '';
  const signature = task.metadata.class_signature;
  return `<?php\n${ns}${signature ? `${signature}\n{\n${task.focal_code}\n}` : task.focal_code}\n`;
}

export async function phpBaselineTest(task: TaskRecord): Promise<string> {
  const nameOf = (fn: Node) => field(fn, 'name')?.text ?? null;
  return withFocalSite(task, 'php', ['method_declaration', 'function_definition'], nameOf, ({ root, fn }) => {
    const b = new PhpBuilder(root);
    const name = field(fn, 'name')?.text ?? task.function_name;
    const nsNode = root.descendantsOfType('namespace_definition')[0];
    const namespace = (task.metadata.namespace as string | undefined) ?? (nsNode ? (field(nsNode, 'name')?.text ?? '') : '');
    const owner = enclosing(fn, CLASS_LIKE);
    const className = owner ? (field(owner, 'name')?.text ?? task.metadata.class_name) : '';

    const body: string[] = [];
    const params = field(fn, 'parameters');
    const taken = new Set(requiredParameters(params).map(variableName));
    const local = (base: string) => (taken.has(base) ? `${base}Value` : base);
    const subject = local('subject');
    const result = local('result');
    let callee = name;
    if (owner) {
      if (hasModifier(fn, 'static_modifier')) callee = `${className}::${name}`;
      else {
        const instance = b.instance(className, 1) ?? `$this->createStub(${className}::class)`;
        body.push(`$${subject} = ${instance};`);
        callee = `$${subject}->${name}`;
      }
    }
    const args: string[] = [];
    for (const p of requiredParameters(params)) {
      const type = field(p, 'type');
      const v = (type ? b.valueOf(type, 1) : null) ?? 'null';
      const variable = variableName(p);
      body.push(`$${variable} = ${v};`);
      args.push(`$${variable}`);
    }
    const call = `${callee}(${args.join(', ')})`;
    if (returnsNonNull(fn)) body.push(`$${result} = ${call};`, '', `$this->assertNotNull($${result});`);
    else body.push(`${call};`, '', '// Reaching this line means the call returned without an error.', '$this->assertTrue(true);');

    const header = ['<?php', '', 'declare(strict_types=1);', ''];
    if (namespace) header.push(`namespace ${namespace};`, '');
    const uses = new Set<string>(['use PHPUnit\\Framework\\TestCase;']);
    if (className && namespace) uses.add(`use ${namespace}\\${className};`);
    for (const u of root.descendantsOfType('namespace_use_declaration')) {
      // The focal file's imports, so the signature's type names resolve the same way here.
      if (u && !enclosing(u, CLASS_LIKE) && !/\b(TestCase)\s*;/.test(u.text)) uses.add(u.text.replace(/\s+/g, ' '));
    }
    const testClass = `${pascalCase(className)}${pascalCase(name)}BaselineTest`;
    return [
      ...header,
      ...uses,
      '',
      '/**',
      ` * Baseline (a lower bound, not a model): calls ${className ? `${className}::` : ''}${name} once with values built from its`,
      ' * parameter types; it passes when the call returns without an error.',
      ' */',
      `final class ${testClass} extends TestCase`,
      '{',
      `    public function test${pascalCase(name)}ReturnsWithoutError(): void`,
      '    {',
      indent(body.join('\n'), '        '),
      '    }',
      '}',
      '',
    ].join('\n');
  }, standalone);
}
