// Loaded with --require by the benches: prints the process's CPU time (user + system, all threads) on
// stderr at exit, a figure that machine load disturbs far less than wall time. CommonJS, so that it
// adds nothing but itself to a process (an ES module here would start the ES module loader in every
// process measured, baseline included, and flatter the ratios).
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write(`\ncpu-ms ${((user + system) / 1000).toFixed(1)}\n`);
});
