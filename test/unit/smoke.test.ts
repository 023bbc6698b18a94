import { strict as assert } from 'node:assert';
import { remark } from 'remark';
describe('smoke', () => { it('loads remark', () => { assert.ok(remark().parse('# a')); }); });
