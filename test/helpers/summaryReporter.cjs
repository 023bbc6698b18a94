'use strict';
// Mocha's spec output plus one closing line, "N passed, N failed", that CI sums across suites.
const Mocha = require('mocha');
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats || { passes: 0, failures: 0 };
      process.stdout.write(`\n${s.passes} passed, ${s.failures} failed\n`);
    });
  }
}
module.exports = SummaryReporter;
