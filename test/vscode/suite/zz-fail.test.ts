import * as assert from 'node:assert';
describe('deliberate', () => { it('fails', () => assert.strictEqual(1, 2)); it('waits', async function () { this.timeout(0); if (process.env.XR_HANG) await new Promise(r => setTimeout(r, 600000)); }); });
