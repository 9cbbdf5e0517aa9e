import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { opcacheSettings, warmScript } from '../../src/engine/languages/php/opcache';
import { phpSettings } from '../../src/engine/languages/php/toolchain';

/**
 * The warm-up script (docker/php/warm-opcache.sh) must start PHP as scored runs do: another setting
 * can give PHP another system id, and then no run reads the cache (languages/php/opcache.ts).
 */
describe('PHP compiled-PHPUnit warm-up', () => {
  it('starts PHP with the scored runs’ settings, then the cache’s', () => {
    const script = fs.readFileSync(warmScript(), 'utf8');
    const expected = `php ${phpSettings('"$w"').join(' ')} ${opcacheSettings('"$cache"').join(' ')} \\\n`;
    assert.ok(script.includes(expected), `the script's PHP line is not:\n${expected}`);
  });

  it('keeps the optimizer off, so PHP runs (and pcov counts) what it compiles without opcache', () => {
    assert.ok(opcacheSettings('/c').includes('opcache.optimization_level=0'));
    assert.ok(opcacheSettings('/c').includes('opcache.file_cache_only=1'));
  });
});
