// `npm run manifest`: writes contributes.languageModelTools in package.json from the tool
// definitions in src/tools (zod schemas -> JSON Schema). A unit test fails when they drift.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { activationEvents, advertisedSize, languageModelToolsManifest } from '../src/tools/manifest';

const file = path.resolve(__dirname, '..', 'package.json');
const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
pkg.contributes.languageModelTools = languageModelToolsManifest();
pkg.activationEvents = activationEvents();
fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
console.log(`package.json: ${pkg.contributes.languageModelTools.length} tools, ${advertisedSize()} characters advertised (budget 8000); over MCP ${advertisedSize('mcp')}`);
