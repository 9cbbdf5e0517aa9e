import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { adapterFor, adapterForPath, LANGUAGE_IDS } from '../../src/engine/languages';
import { editorLanguageOf, editorLanguages, oneOfNames } from '../../src/extension/languages';
import { LANGUAGES as BENCH_LANGUAGES } from '../../src/shared/bench-options';
import { REPO_ROOT } from '../helpers/paths';

/**
 * The language registry is src/engine/languages/. package.json and the shared wire code cannot import
 * it, so they keep their own lists of languages (package.json's activationEvents, menu `when`
 * clauses and description; src/shared/bench-options.ts LANGUAGES); the extension keeps none: it reads
 * its package.json at run time (src/extension/languages.ts). This checks every list against the
 * registry, so that a language added to the registry and forgotten in one of them fails here, naming
 * the file to edit. Pure: reads files only.
 */

const read = (rel: string): string => fs.readFileSync(path.join(REPO_ROOT, rel), 'utf8');
const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

/** Every VS Code language id the registry's languages open as (`editor.languageIds`). */
const editorIds = sorted(LANGUAGE_IDS.flatMap((id) => adapterFor(id).editor.languageIds));

/** The missing and the extra entries of a list, for a message that says what to add or remove. */
function diff(found: Iterable<string>, wanted: Iterable<string>): string {
  const f = new Set(found);
  const w = new Set(wanted);
  const missing = [...w].filter((x) => !f.has(x));
  const extra = [...f].filter((x) => !w.has(x));
  return `${missing.length ? `missing ${missing.join(', ')}` : ''}${missing.length && extra.length ? '; ' : ''}${extra.length ? `not in the registry ${extra.join(', ')}` : ''}`;
}

function assertSameSet(found: Iterable<string>, wanted: Iterable<string>, where: string): void {
  const d = diff(found, wanted);
  assert.equal(d, '', `${where} does not list the registry's languages (src/engine/languages/): ${d}`);
}

interface PackageJson {
  activationEvents: string[];
  description: string;
  contributes: { menus: Record<string, Array<{ command: string; when?: string }>> };
}

/** The `when` clauses of package.json's menus that name editor languages (`editorLangId =~ /^(…)$/`). */
function languageWhenClauses(pkg: PackageJson): Array<{ where: string; when: string }> {
  return Object.entries(pkg.contributes.menus).flatMap(([menu, items]) =>
    items.filter((i) => i.when?.includes('editorLangId')).map((i) => ({ where: `package.json contributes.menus["${menu}"] (${i.command})`, when: i.when! })),
  );
}

/** A `when` clause's `key =~ /regex/` as a JavaScript RegExp (the clause's JSON escapes are already undone). */
function whenRegex(when: string, key: string): RegExp | null {
  const m = new RegExp(`${key} =~ /((?:\\\\/|[^/])+)/`).exec(when);
  return m ? new RegExp(m[1]) : null;
}

/** Files under a folder (relative, '/'-separated), skipping dependency and VCS folders. */
function filesUnder(root: string, rel = ''): string[] {
  return fs.readdirSync(path.join(root, rel), { withFileTypes: true }).flatMap((e) => {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) return ['.git', 'vendor', 'target', 'node_modules'].includes(e.name) ? [] : filesUnder(root, p);
    return [p];
  });
}

describe('language lists outside the engine match the registry', () => {
  const pkg = JSON.parse(read('package.json')) as PackageJson;

  it('the registry has languages, each with editor ids (the lists below would pass empty otherwise)', () => {
    assert.ok(LANGUAGE_IDS.length >= 5, 'the registry lists fewer languages than the five the project supports');
    for (const id of LANGUAGE_IDS) assert.ok(adapterFor(id).editor.languageIds.length > 0, `languages/${id}/editor.ts names no VS Code language id`);
  });

  it("package.json activationEvents: a workspace holding a language's manifest activates the extension before any file is opened", () => {
    const found = pkg.activationEvents.filter((e) => e.startsWith('workspaceContains:')).map((e) => e.slice('workspaceContains:'.length));
    assertSameSet(found, LANGUAGE_IDS.map((id) => adapterFor(id).image.manifest), 'package.json activationEvents (workspaceContains:<manifest>)');
  });

  it('package.json activationEvents: onLanguage for every editor language id', () => {
    const found = pkg.activationEvents.filter((e) => e.startsWith('onLanguage:')).map((e) => e.slice('onLanguage:'.length));
    assertSameSet(found, editorIds, 'package.json activationEvents (onLanguage:<id>)');
  });

  it("package.json menus: every `when` on editorLangId names every editor language id", () => {
    const clauses = languageWhenClauses(pkg);
    assert.ok(clauses.length > 0, 'no menu of package.json checks editorLangId: this test would check nothing');
    for (const { where, when } of clauses) {
      const re = whenRegex(when, 'editorLangId');
      assert.ok(re, `${where}: no \`editorLangId =~ /…/\` in ${when}`);
      const named = /^\^\(([^)]*)\)\$$/.exec(re.source)?.[1].split('|') ?? [];
      assertSameSet(named, editorIds, `${where} (editorLangId)`);
    }
  });

  it("package.json menus: test files of every language's fixture are kept out (resourceFilename / resourcePath)", () => {
    const fixtures = path.join(REPO_ROOT, 'test', 'fixtures');
    const testFiles = new Map<string, string[]>(); // language -> its fixtures' test files
    for (const repo of fs.readdirSync(fixtures, { withFileTypes: true }).filter((e) => e.isDirectory())) {
      for (const rel of filesUnder(path.join(fixtures, repo.name))) {
        const adapter = adapterForPath(rel);
        if (adapter?.isTestFile(rel)) testFiles.set(adapter.id, [...(testFiles.get(adapter.id) ?? []), `${repo.name}/${rel}`]);
      }
    }
    for (const id of LANGUAGE_IDS) assert.ok(testFiles.get(id)?.length, `no fixture under test/fixtures/ has a ${id} test file: add the language's fixture`);
    for (const { where, when } of languageWhenClauses(pkg)) {
      const byName = whenRegex(when, 'resourceFilename');
      const byPath = whenRegex(when, 'resourcePath');
      for (const [id, files] of testFiles) {
        for (const f of files) {
          const hidden = (byName?.test(path.posix.basename(f)) ?? false) || (byPath?.test(`/home/user/project/${f}`) ?? false);
          assert.ok(hidden, `${where}: the ${id} test file test/fixtures/${f} is not excluded; add its name pattern to the resourceFilename regex`);
        }
      }
    }
  });

  it("the extension's languages, read from package.json by src/extension/languages.ts, are the registry's editor ids", () => {
    assertSameSet(editorLanguages(pkg).ids, editorIds, 'package.json activationEvents (onLanguage:<id>, read by src/extension/languages.ts for the document selector and the annotator)');
  });

  it('a result of every language opens in the editor as one of its VS Code language ids (the annotator)', () => {
    const languages = editorLanguages(pkg);
    for (const id of LANGUAGE_IDS) {
      const opensAs = editorLanguageOf(languages, id);
      assert.ok(
        opensAs !== undefined && adapterFor(id).editor.languageIds.includes(opensAs),
        `a ${id} result would open as ${opensAs ?? 'plain text'}: src/extension/languages.ts opens a result's language as the same VS Code id, so package.json activationEvents needs onLanguage:${id} and languages/${id}/editor.ts languageIds must include '${id}'`,
      );
    }
  });

  it('package.json description names every language (the "open a … file" hint reads its names there)', () => {
    const names = editorLanguages(pkg).names;
    for (const id of LANGUAGE_IDS) {
      const name = adapterFor(id).displayName;
      assert.ok(names.includes(name), `package.json description "${String(pkg.description)}" does not name ${name} in its "for A, B and C (…)" list, which src/extension/languages.ts reads for the "open a … file" hint`);
    }
    assertSameSet(names, LANGUAGE_IDS.map((id) => adapterFor(id).displayName), 'package.json description (its language names)');
  });

  it('no file of src/extension/ keeps its own list of language ids (they all read src/extension/languages.ts)', () => {
    const dir = path.join(REPO_ROOT, 'src', 'extension');
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = read(`src/extension/${file}`);
      for (const id of editorIds) assert.ok(!new RegExp(`['"\`]${id}['"\`]`).test(text), `src/extension/${file} names the language '${id}' itself: take the list from src/extension/languages.ts (package.json)`);
    }
  });

  it('src/shared/bench-options.ts: LANGUAGES is the registry, in its order', () => {
    assert.deepEqual([...BENCH_LANGUAGES], [...LANGUAGE_IDS], 'src/shared/bench-options.ts LANGUAGES differs from src/engine/languages/ids.ts LANGUAGE_IDS');
  });

  it('every language ships its grammar and its image recipes', () => {
    for (const id of LANGUAGE_IDS) {
      assert.ok(fs.existsSync(path.join(REPO_ROOT, 'grammars', `${id}.wasm.gz`)), `grammars/${id}.wasm.gz is missing (grammars/VERSIONS.md says how to build one)`);
      assert.ok(fs.existsSync(path.join(REPO_ROOT, 'docker', id, 'Dockerfile.official')), `docker/${id}/Dockerfile.official is missing`);
      if (!adapterFor(id).image.noDebianVariant) assert.ok(fs.existsSync(path.join(REPO_ROOT, 'docker', id, 'Dockerfile.debian')), `docker/${id}/Dockerfile.debian is missing (or say why in image.noDebianVariant)`);
    }
  });
});

describe('src/extension/languages.ts reads the languages from a package.json', () => {
  it('takes the onLanguage activation events in order, once each, and ignores the rest', () => {
    const l = editorLanguages({ activationEvents: ['onLanguage:rust', 'onCommand:x', 'onLanguage:go', 'onLanguage:rust', 7], description: 'no list here' });
    assert.deepEqual(l.ids, ['rust', 'go']);
    assert.deepEqual(l.names, ['rust', 'go'], 'without a "for A and B (" list the names are the ids');
    assert.deepEqual(editorLanguages({}).ids, []);
  });

  it('takes the names from the description\'s "for A, B and C (…)" list', () => {
    const l = editorLanguages({ activationEvents: [], description: 'Scored, repository-level tests for Rust, Go, Julia, PHP and Ruby (the benchmark).' });
    assert.deepEqual(l.names, ['Rust', 'Go', 'Julia', 'PHP', 'Ruby']);
    assert.equal(oneOfNames(l), 'Rust, Go, Julia, PHP or Ruby');
    assert.equal(oneOfNames({ ids: [], names: ['Rust'] }), 'Rust');
  });

  it('opens a result as its own id only when the extension activates on it', () => {
    const l = editorLanguages({ activationEvents: ['onLanguage:rust'] });
    assert.equal(editorLanguageOf(l, 'rust'), 'rust');
    assert.equal(editorLanguageOf(l, 'go'), undefined);
  });
});
