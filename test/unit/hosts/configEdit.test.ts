// setup's entries in JSONC and TOML text: the file's own style for what is added, and nothing of
// the person's (comments, commas, other keys) lost when it is taken out again.
import { strict as assert } from 'node:assert';
import { EntryEdit, editConfig, sameValue } from '../../../src/hosts/setup/configEdit';

const hook = (cmd: string) => ({ type: 'command', command: cmd });
const HOOKS: EntryEdit = { shape: 'hookGroups', entries: [{ place: ['hooks', 'Stop'], value: { hooks: [hook('pi-plans hook --agent claude --event Stop')] } }], what: 'hooks' };
const SERVER: EntryEdit = { shape: 'named', entries: [{ place: ['mcp_servers', 'pi-plans'], value: { command: 'pi-plans', args: ['mcp'] } }], what: 'MCP server' };

describe('configEdit: setup\'s entries in JSONC and TOML text', () => {
  it('what it adds takes the file\'s indentation and line ends (tabs, CRLF), and comes out again exactly', () => {
    const text = '{\r\n\t"model": "opus", // mine\r\n\t"env": {}\r\n}\r\n';
    const added = editConfig('json', text, HOOKS, false).text!;
    assert.match(added, /\r\n\t"hooks": \{\r\n\t\t"Stop": \[\r\n\t\t\t\{\r\n\t\t\t\t"hooks": \[/);
    assert.ok(!/[^\r]\n/.test(added), 'no bare LF');
    assert.equal(editConfig('json', added, HOOKS, true).text, text);
  });

  it('taking out a container the person had leaves their comment and makes no broken JSON', () => {
    const text = '{\n  "model": "opus", // keep\n  "hooks": {}\n}\n';
    const added = editConfig('json', text, HOOKS, false).text!;
    const removed = editConfig('json', added, HOOKS, true).text!;
    assert.match(removed, /"model": "opus" \/\/ keep/);
    assert.doesNotMatch(removed, /"hooks"/);
    // Only our hook inside the person's group goes; the group and its matcher stay.
    const mixed = '{ "hooks": { "Stop": [ { "matcher": "", "hooks": [ { "command": "./a.sh" }, /* ours: */ { "command": "x hook --agent claude --event Stop" } ] } ] } }';
    assert.equal(editConfig('json', mixed, HOOKS, true).text, '{ "hooks": { "Stop": [ { "matcher": "", "hooks": [ { "command": "./a.sh" } /* ours: */  ] } ] } }', "the comma and our entry go, the comment and the spaces around it stay");
  });

  it('a hook entry is ours by its command (hook --agent or hook --event), never by where it is', () => {
    const theirs = '{ "hooks": { "Stop": [ { "hooks": [ { "command": "my-hook --agent x" } ] } ] } }';
    assert.deepEqual(editConfig('json', theirs, HOOKS, true), { text: theirs, changes: [] });
    const twoOfOurs = '{ "hooks": { "Stop": [ { "hooks": [ { "command": "old hook --agent claude --event Stop" } ] }, { "hooks": [ { "command": "older hook --event Stop" } ] } ] } }';
    const r = editConfig('json', twoOfOurs, HOOKS, false);
    assert.deepEqual(r.changes, ['updated hooks Stop']);
    assert.deepEqual(JSON.parse(r.text!).hooks.Stop, [{ hooks: [hook('pi-plans hook --agent claude --event Stop')] }]);
  });

  it('a file of ours gets its top keys (version: 1) once, and goes when nothing else is left in it', () => {
    const edit: EntryEdit = { shape: 'hookList', top: { version: 1 }, entries: [{ place: ['hooks', 'agentStop'], value: { bash: 'p hook --event agentStop' } }], what: 'hooks' };
    const made = editConfig('json', undefined, edit, false).text!;
    assert.equal(made, '{\n  "version": 1,\n  "hooks": {\n    "agentStop": [\n      {\n        "bash": "p hook --event agentStop"\n      }\n    ]\n  }\n}\n');
    assert.equal(editConfig('json', made, edit, true).text, undefined);
    const withTheirs = editConfig('json', '{ "hooks": { "preToolUse": [ { "bash": "./check.sh" } ] } }', edit, false).text!;
    assert.equal(JSON.parse(withTheirs).version, 1);
    assert.deepEqual(JSON.parse(editConfig('json', withTheirs, edit, true).text!), { version: 1, hooks: { preToolUse: [{ bash: './check.sh' }] } });
  });

  it('TOML: added as its own [table], idempotent, refused when the key holds a value', () => {
    const text = '# top\nmodel = "o3"\n';
    const added = editConfig('toml', text, SERVER, false);
    assert.equal(added.text, '# top\nmodel = "o3"\n\n[mcp_servers]\n\n[mcp_servers.pi-plans]\ncommand = "pi-plans"\nargs = [ "mcp" ]\n');
    assert.deepEqual(editConfig('toml', added.text, SERVER, false).changes, []);
    assert.equal(editConfig('toml', added.text, SERVER, true).text, text);
    assert.throws(() => editConfig('toml', 'mcp_servers = 3\n', SERVER, false), /"mcp_servers" holds a value, not a table/);
  });

  it('sameValue compares JSON values whatever the key order or prototype', () => {
    assert.ok(sameValue({ a: 1, b: [1, { c: 2 }] }, Object.assign(Object.create(null), { b: [1, { c: 2 }], a: 1 })));
    assert.ok(!sameValue({ a: 1 }, { a: 1, b: undefined }));
    assert.ok(!sameValue([1, 2], [2, 1]));
    assert.ok(!sameValue({ a: [] }, { a: {} }));
  });
});
