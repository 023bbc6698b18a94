'use strict';
// Test-wide setup: the warm-start index cache, the user's configuration and state go to temp
// folders, never the user's home.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-test-cache-'));
process.env.PI_PLANS_CACHE_DIR = dir;
// The user's configuration (approval keys, trusted approvers) and state (review copies) too.
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-test-home-'));
process.env.XDG_CONFIG_HOME = path.join(home, 'config');
process.env.XDG_STATE_HOME = path.join(home, 'state');
// The test person's name, as their configuration gives it (otherwise the login name, which differs by machine).
fs.mkdirSync(path.join(home, 'config', 'pi-plans'), { recursive: true });
fs.writeFileSync(path.join(home, 'config', 'pi-plans', 'config.json'), JSON.stringify({ name: 'Test Person' }));
delete process.env.PI_PLANS_STATE_DIR;
exports.mochaHooks = {
  afterAll() {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  },
};
