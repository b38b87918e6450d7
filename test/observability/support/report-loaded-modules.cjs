// Preloaded (--require) into a service child process by the tracing tests: on SIGUSR2 it prints every
// module file the process has loaded through require, so a test can check what is (not) in memory.
process.on('SIGUSR2', () => {
  process.stdout.write(`${JSON.stringify({ loadedModules: Object.keys(require.cache) })}\n`);
});
