import { strict as assert } from 'node:assert';
import {
  pathInRepository,
  repositoryFolderOf,
  repositoryLabelOf,
  repositoryNameOf,
  repositoryNameOrNull,
  TaskPathError,
  UNKNOWN_REPOSITORY,
} from '../../src/engine/tasks/task-path';

/** A task or a result record, as far as the helpers read it. */
const record = (file_path: unknown, name?: unknown) => ({ file_path, ...(name === undefined ? {} : { repository: { name } }) });

/** Paths a dataset (or a results file) may carry that must never name a repository or a file. */
const HOSTILE: readonly unknown[] = [
  '',
  '../x',
  'repo/../../etc/passwd',
  '/etc/passwd',
  '/repo/src/a.go',
  'C:/repo/a.go',
  'repo\\src\\a.go',
  '..\\x\\a.go',
  'repo//a.go',
  'repo/./a.go',
  './repo/a.go',
  'repo/a.go/',
  'a.go',
  'repo/a\u0000.go',
  'repo/a\n.go',
  undefined,
  null,
  42,
];

describe('task paths: one rule for <repo>/<path>', () => {
  it('splits an ordinary file_path into its repository folder and its path inside', () => {
    assert.equal(repositoryFolderOf('geometry-rs/src/interval.rs'), 'geometry-rs');
    assert.equal(pathInRepository('geometry-rs/src/interval.rs'), 'src/interval.rs');
    assert.equal(repositoryFolderOf(record('MiniStats.jl/src/MiniStats.jl')), 'MiniStats.jl', 'a task, not only a string');
    assert.equal(pathInRepository(record('textkit-php/src/Text/Slug.php')), 'src/Text/Slug.php');
    assert.equal(pathInRepository('r/a.go'), 'a.go');
  });

  it('names the repository by its pinned name, else by the path\'s first segment', () => {
    assert.equal(repositoryNameOf(record('inventory-go/stock.go')), 'inventory-go', 'the release\'s records have no name');
    assert.equal(repositoryNameOf(record('inventory-go/stock.go', 'inventory-go')), 'inventory-go');
    assert.equal(repositoryNameOf(record('inventory-go/stock.go', 'pinned')), 'pinned', 'a pinned name wins');
    assert.equal(repositoryNameOf({ file_path: 'inventory-go/stock.go', repository: null }), 'inventory-go');
  });

  it('falls back to the path\'s folder when the pinned name is not one plain folder name', () => {
    // One old rule kept an empty name (`??`), the other skipped it (`||`): the one rule skips it.
    for (const name of ['', '.', '..', 'a/b', 'a\\b', 'x\ny', 7, null]) {
      assert.equal(repositoryNameOf(record('bookshelf-rb/lib/shelf.rb', name)), 'bookshelf-rb', JSON.stringify(name));
      assert.equal(repositoryLabelOf(record('bookshelf-rb/lib/shelf.rb', name)), 'bookshelf-rb', JSON.stringify(name));
    }
  });

  it('refuses every hostile path: the throwing helpers throw TaskPathError, the others give no name', () => {
    for (const p of HOSTILE) {
      const why = JSON.stringify(p);
      assert.throws(() => pathInRepository(p as string), TaskPathError, `pathInRepository ${why}`);
      assert.throws(() => repositoryFolderOf(p as string), TaskPathError, `repositoryFolderOf ${why}`);
      assert.throws(() => pathInRepository(record(p) as { file_path: string }), TaskPathError, `pathInRepository(task) ${why}`);
      assert.throws(() => repositoryNameOf(record(p)), TaskPathError, `repositoryNameOf ${why}`);
      assert.equal(repositoryNameOrNull(record(p)), null, `repositoryNameOrNull ${why}`);
      assert.equal(repositoryLabelOf(record(p)), UNKNOWN_REPOSITORY, `repositoryLabelOf ${why}`);
    }
  });

  it('a hostile name never stands in for a hostile path', () => {
    for (const name of ['..', '', '/etc', '../x']) {
      assert.throws(() => repositoryNameOf(record('../x/a.go', name)), TaskPathError, JSON.stringify(name));
      assert.equal(repositoryLabelOf(record('/abs/a.go', name)), UNKNOWN_REPOSITORY, JSON.stringify(name));
    }
  });

  it('a sound pinned name still names a record whose path breaks the rule (a results file read back)', () => {
    assert.equal(repositoryNameOrNull(record('../x/a.go', 'shapes')), 'shapes');
    // ...but the path itself stays refused: nothing is located through it.
    assert.throws(() => pathInRepository(record('../x/a.go', 'shapes') as { file_path: string }), TaskPathError);
  });

  it('says the rule in its refusal', () => {
    assert.throws(() => repositoryNameOf(record('../x')), /file_path "\.\.\/x" has a "\.\." segment: file_path must be "<repository folder>\/<path inside it>"/);
  });
});
