import { startHranaServer } from './src/dev/hrana-server.ts';
const t0 = performance.now();
const s = await startHranaServer({ databaseUrl: 'file:/tmp/hx/k.db' });
console.log('started', performance.now() - t0);
const t1 = performance.now();
await s.close();
console.log('closed', performance.now() - t1);
