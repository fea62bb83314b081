// Loaded with --import by the benches: prints the process's CPU time (user + system, all threads) on
// stderr at exit, a figure that machine load disturbs far less than wall time.
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write(`\ncpu-ms ${((user + system) / 1000).toFixed(1)}\n`);
});
