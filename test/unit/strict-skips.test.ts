import { strict as assert } from 'node:assert';
import { skipBecause } from '../helpers/skip';
import { allowancesFor, allowedSkipCounts, CANNOT_HAVE, strictRefusal, strictSkipsSummary, type SkipKind } from '../helpers/skip-policy';

/** The kinds of the 12 skips of the last clean-clone CI run (one call each; a hook's skip covers its tests). */
const CI_SKIPS: Array<[string, SkipKind]> = [
  ['execute-docker: the julia image cannot be built here', { image: 'julia' }],
  ['execute-local: julia not installed here (pass, fail, nocompile, noinvoke)', { tools: ['julia'] }],
  ['mutation: julia not installed here', { tools: ['julia'] }],
  ['fixture-toolchains: julia is not installed on this machine', { tools: ['julia'] }],
  ['fidelity-ruby (local and docker): tty-color 0.6.0 has no reachable public archive here', { source: 'tty-color 0.6.0' }],
];

/** Runs `skipBecause` with XRT_STRICT_SKIPS as given, on a stand-in context; says whether it skipped or threw. */
function trySkip(strict: string | undefined, kind?: SkipKind): { skipped: boolean; error?: Error } {
  const saved = process.env.XRT_STRICT_SKIPS;
  const counts = new Map(allowedSkipCounts); // this run's own closing summary must not count these
  const write = process.stdout.write;
  let skipped = false;
  const ctx = {
    skip: () => {
      skipped = true;
      throw new Error('skipped');
    },
  } as unknown as Mocha.Context;
  if (strict === undefined) delete process.env.XRT_STRICT_SKIPS;
  else process.env.XRT_STRICT_SKIPS = strict;
  process.stdout.write = (() => true) as typeof process.stdout.write; // no "skipped:" line in this run's log
  try {
    skipBecause(ctx, 'a reason', kind);
    return { skipped };
  } catch (e) {
    return skipped ? { skipped } : { skipped, error: e as Error };
  } finally {
    process.stdout.write = write;
    allowedSkipCounts.clear();
    for (const [k, v] of counts) allowedSkipCounts.set(k, v);
    if (saved === undefined) delete process.env.XRT_STRICT_SKIPS;
    else process.env.XRT_STRICT_SKIPS = saved;
  }
}

describe('strict skips (XRT_STRICT_SKIPS=1, as .ci/run sets it)', () => {
  it('allows the skips of the last CI run on this kind of machine: Julia, its image, the tty-color archive', () => {
    for (const [what, kind] of CI_SKIPS) assert.ok(allowancesFor(kind), what);
  });

  it('refuses a missing tool a setup installs (php, podman, go, cargo, rspec, redis-server), even beside julia', () => {
    for (const tool of ['php', 'phpunit', 'podman', 'go', 'cargo', 'rspec', 'redis-server', 'bwrap']) assert.equal(allowancesFor({ tools: [tool] }), null, tool);
    assert.equal(allowancesFor({ tools: ['julia', 'php'] }), null, 'every missing tool must be allowed');
    assert.equal(allowancesFor({ tools: [] }), null, 'a tool skip naming no tool');
  });

  it('refuses another image, another source, and a skip that gives no kind', () => {
    assert.equal(allowancesFor({ image: 'php' }), null);
    assert.equal(allowancesFor({ image: 'base' }), null);
    assert.equal(allowancesFor({ source: 'hashie 5.0.0' }), null);
    assert.equal(allowancesFor({ source: 'tty-color 0.7.0' }), null, 'the name and version, exactly');
    assert.equal(allowancesFor(undefined), null);
  });

  it('does not read the message: a tool skip is judged by the tool it names', () => {
    assert.equal(allowancesFor({ tools: ['JULIA'] }), null, 'names are exact');
    assert.ok(allowancesFor({ tools: ['julia'] }));
  });

  it('skipBecause fails the test instead of skipping, in strict mode only, unless the kind is allowed', () => {
    const refused = trySkip('1', { tools: ['php'] });
    assert.equal(refused.skipped, false);
    assert.match(refused.error?.message ?? '', /^strict skips \(XRT_STRICT_SKIPS=1\): this test would skip \("a reason"\), for tool php, which is not on the list/);
    assert.match(trySkip('1', undefined).error?.message ?? '', /for a reason of no kind/);
    assert.deepEqual(trySkip('1', { tools: ['julia'] }), { skipped: true });
    assert.deepEqual(trySkip(undefined, { tools: ['php'] }), { skipped: true }, 'outside strict mode a skip skips');
    assert.deepEqual(trySkip('0', undefined), { skipped: true }, 'only "1" turns it on');
  });

  it('prints every allowance with why and how many skips it covered', () => {
    const text = strictSkipsSummary(new Map([[CANNOT_HAVE[0], 6]]));
    for (const c of CANNOT_HAVE) assert.ok(text.includes(`${c.what} ${c.name}: ${c === CANNOT_HAVE[0] ? 6 : 0} skipped here; ${c.why}`), text);
    for (const c of CANNOT_HAVE) assert.ok(c.why.length > 20, `${c.name} says why this kind of machine cannot have it`);
  });

  it('names the tools a refusal is for', () => {
    assert.match(strictRefusal('x', { tools: ['php', 'phpunit'] }), /for tool php, tool phpunit,/);
  });
});
