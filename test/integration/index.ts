// Entry point the extension host loads (extensionTestsPath): runs the suites named by
// PI_PLANS_SUITE with mocha, printing spec output and a closing "N passed, N failed" line.
import Mocha from 'mocha';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import { MARK } from './helpers';

// The workbench's console carries everyone's logs; the runner prints only lines with our mark.
Mocha.reporters.Base.consoleLog = (...args: unknown[]) => {
  for (const line of format(...args).split('\n')) console.log(MARK + line);
};

class SummarySpec extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options: Mocha.MochaOptions) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const s = runner.stats ?? { passes: 0, failures: 0 };
      Mocha.reporters.Base.consoleLog(`\n${s.passes} passed, ${s.failures} failed`);
    });
  }
}

export function run(): Promise<void> {
  const suite = process.env.PI_PLANS_SUITE || 'dev';
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 30_000, reporter: SummarySpec as never });
  const files = fs.readdirSync(__dirname).filter((f) => f.startsWith(`${suite}.`) && f.endsWith('.test.js'));
  if (!files.length) return Promise.reject(new Error(`no test files for suite ${suite} in ${__dirname}`));
  for (const f of files) mocha.addFile(path.join(__dirname, f));
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures ? reject(new Error(`${failures} test(s) failed`)) : resolve()));
  });
}
