'use strict';
// Test-wide setup: the warm-start index cache goes to a temp folder, never the user's home.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-test-cache-'));
process.env.PI_PLANS_CACHE_DIR = dir;
exports.mochaHooks = {
  afterAll() {
    fs.rmSync(dir, { recursive: true, force: true });
  },
};
