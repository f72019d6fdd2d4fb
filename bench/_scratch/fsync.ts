import { Level } from 'level';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const dir = await mkdtemp(join(tmpdir(), 'vb-'));
const db = new Level<string, string>(join(dir, 'db'));
await db.open();
for (const n of [10, 100]) {
  const t = performance.now();
  for (let i = 0; i < n; i++) await db.batch([{ type: 'put', key: 'k' + i, value: 'x'.repeat(200) }], { sync: true } as never);
  console.log(n, 'sync puts', ((performance.now() - t) / n).toFixed(3), 'ms each');
}
const t = performance.now();
for (let i = 0; i < 100; i++) await db.batch([{ type: 'put', key: 'k' + i, value: 'x'.repeat(200) }]);
console.log('nosync', ((performance.now() - t) / 100).toFixed(3));
await db.close(); await rm(dir, { recursive: true });
