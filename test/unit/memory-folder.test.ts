import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { memorySandboxParent, mountOf, parseMountInfo } from '../../src/engine/execute/memory-folder';

// Lines shaped as /proc/self/mountinfo writes them (proc(5)), written for this test.
const MOUNTINFO = [
  '22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
  '23 22 0:21 / /dev rw,nosuid shared:2 - devtmpfs udev rw,size=10g',
  '24 23 0:22 / /dev/shm rw,nosuid,nodev,noexec shared:3 - tmpfs tmpfs rw',
  '25 22 0:23 / /run/user/1000 rw,nosuid,nodev,relatime shared:4 - tmpfs tmpfs rw,size=1608144k,mode=700',
  '26 22 0:24 / /mnt/with\\040space rw shared:5 - tmpfs tmpfs rw',
  '27 24 0:25 / /dev/shm rw,nosuid,nodev shared:6 - tmpfs tmpfs rw',
  'garbage without the separator',
].join('\n');

describe('where sandboxes may go in memory (memory-folder.ts)', () => {
  const mounts = parseMountInfo(MOUNTINFO);

  it('reads mount points (octal escapes undone), their options and types; skips what is not a mount line', () => {
    assert.equal(mounts.length, 6);
    assert.deepEqual(mounts[2], { mountPoint: '/dev/shm', options: ['rw', 'nosuid', 'nodev', 'noexec'], fsType: 'tmpfs' });
    assert.equal(mounts[4].mountPoint, '/mnt/with space');
  });

  it('finds the mount a path lies on: the longest mount point above it, the last mounted on a tie', () => {
    assert.equal(mountOf('/run/user/1000/x', mounts)?.fsType, 'tmpfs');
    assert.equal(mountOf('/run/user/10000', mounts)?.mountPoint, '/', 'a name that only starts like the mount point is not under it');
    assert.deepEqual(mountOf('/dev/shm/xrt', mounts)?.options, ['rw', 'nosuid', 'nodev'], 'mounted over: the later mount counts');
    assert.equal(mountOf('/dev/null', mounts)?.fsType, 'devtmpfs');
    assert.equal(mountOf('/home/u', mounts)?.fsType, 'ext4');
  });

  it('XREPOTEST_SANDBOX_DIR decides: "-" or empty means on disk, a folder is taken as named', () => {
    assert.equal(memorySandboxParent({ XREPOTEST_SANDBOX_DIR: '-' }), null);
    assert.equal(memorySandboxParent({ XREPOTEST_SANDBOX_DIR: '' }), null);
    assert.equal(memorySandboxParent({ XREPOTEST_SANDBOX_DIR: 'rel/dir' }), path.resolve('rel/dir'));
  });
});
