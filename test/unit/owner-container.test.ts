import { strict as assert } from 'node:assert';
import { containerIdFromMountinfo } from '../../src/engine/execute/owner-container';

const ID = '0aa522f5092e73b66327c264c92da6dd924eb21f00341d0a3070881d2ace3428';

describe('the container a process runs in (mountinfo)', () => {
  it('reads the id from the /etc/hostname mount, as Podman and Docker write it', () => {
    const podman = `185 160 0:52 / / rw,relatime - overlay overlay rw\n191 185 254:0 /run/containers/storage/overlay-containers/${ID}/userdata/hostname /etc/hostname rw,relatime - ext4 /dev/vda rw\n`;
    assert.equal(containerIdFromMountinfo(podman), ID);
    const docker = `612 590 8:1 /var/lib/docker/containers/${ID}/hostname /etc/hostname rw,relatime - ext4 /dev/sda1 rw\n`;
    assert.equal(containerIdFromMountinfo(docker), ID);
  });

  it('finds none on a host, and takes no id from another mount or a short one', () => {
    assert.equal(containerIdFromMountinfo('22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n'), null);
    assert.equal(containerIdFromMountinfo(`30 22 8:1 /data/${ID}/x /mnt rw - ext4 /dev/sda1 rw\n`), null, 'only the hostname mount names the container');
    assert.equal(containerIdFromMountinfo('30 22 8:1 /run/abc123/hostname /etc/hostname rw - ext4 /dev/sda1 rw\n'), null);
    assert.equal(containerIdFromMountinfo(''), null);
  });
});
