// Prints one plain closing line after a jest run, `tests: N passed, N failed, N skipped`, so any CI that
// reads a run's last lines (not only jest's own format) sees what ran.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(`tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`);
  }
}
module.exports = SummaryReporter;
