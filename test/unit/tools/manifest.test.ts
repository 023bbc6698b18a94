import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { ALL_TOOLS } from '../../../src/tools';
import { activationEvents, advertisedSize, languageModelToolsManifest } from '../../../src/tools/manifest';

const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));
const nls = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.nls.json'), 'utf8'));

describe('tool manifest', () => {
  it('package.json languageModelTools equals what the zod schemas generate (run `npm run manifest` after changing a tool)', () => {
    assert.deepEqual(pkg.contributes.languageModelTools, languageModelToolsManifest());
    assert.deepEqual(pkg.activationEvents, activationEvents());
  });

  it('each inputSchema is z.toJSONSchema of the tool\'s schema (without $schema)', () => {
    for (const t of ALL_TOOLS) {
      const m = pkg.contributes.languageModelTools.find((x: { name: string }) => x.name === t.name);
      const { $schema: _s, ...expected } = z.toJSONSchema(t.schema) as Record<string, unknown>;
      assert.deepEqual(m.inputSchema, expected, t.name);
    }
  });

  it('every string and array in every input schema has a maximum', () => {
    const walk = (s: Record<string, unknown>, where: string) => {
      if (s.type === 'string' && s.maxLength === undefined && !s.enum && s.const === undefined) assert.fail(`${where}: string without maxLength`);
      if (s.type === 'array') {
        assert.ok(s.maxItems !== undefined, `${where}: array without maxItems`);
        walk(s.items as Record<string, unknown>, `${where}[]`);
      }
      for (const [k, v] of Object.entries((s.properties as Record<string, Record<string, unknown>>) ?? {})) walk(v, `${where}.${k}`);
      for (const v of (s.anyOf as Record<string, unknown>[]) ?? []) walk(v, `${where}|`);
    };
    for (const t of pkg.contributes.languageModelTools) walk(t.inputSchema, t.name);
  });

  it('the whole advertised tool set stays under 8,000 characters, in VS Code and over MCP', () => {
    for (const face of ['vscode', 'mcp'] as const) {
      const size = advertisedSize(face);
      assert.ok(size < 8000, `${face}: ${size} characters`);
    }
  });

  it('every tool has a display name, reference name, icon, tags and descriptions; gated tools and approve have when clauses', () => {
    for (const t of pkg.contributes.languageModelTools) {
      for (const k of ['name', 'displayName', 'toolReferenceName', 'icon', 'userDescription', 'modelDescription']) assert.ok(t[k], `${t.name}.${k}`);
      assert.ok(Array.isArray(t.tags) && t.tags.length, t.name);
    }
    const when = Object.fromEntries(pkg.contributes.languageModelTools.map((t: { name: string; when?: string }) => [t.name, t.when]));
    assert.equal(when.pi_plan_approve, 'config.piPlans.agentApproval.enabled');
    for (const n of ['pi_plan_step', 'pi_plan_update', 'pi_plan_set_content', 'pi_plan_execute']) assert.match(when[n], /piPlans\.planWorkActive/);
    for (const n of ['pi_plan_create', 'pi_plan_get', 'pi_plan_list', 'pi_plan_submit']) assert.equal(when[n], undefined, n);
  });

  it('the agent-approval setting is application-scoped and off by default; every %key% has a string', () => {
    const p = pkg.contributes.configuration.properties['piPlans.agentApproval.enabled'];
    assert.equal(p.scope, 'application');
    assert.equal(p.default, false);
    const keys = JSON.stringify(pkg).match(/%[\w.]+%/g) ?? [];
    for (const k of keys) assert.ok(nls[k.slice(1, -1)], `package.nls.json lacks ${k}`);
  });
});
