// Preloaded into a host by bench-overhead.ts (`node --import`): prints the process's memory on stderr every second,
// as `MEMORY {"rss":..,"heapUsed":..,"heapTotal":..,"external":..}` (bytes), so the bench reads the heap from outside.
setInterval(() => {
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  process.stderr.write(`MEMORY ${JSON.stringify({ rss, heapUsed, heapTotal, external })}\n`);
}, 1000).unref();
