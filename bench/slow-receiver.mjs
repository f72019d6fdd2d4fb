// The "10-second endpoint" of bench 17, in a process of its own: an HTTP server on 127.0.0.1 that answers 204 to each
// request only after the delay given as the first argument (ms). It prints its URL as the first line on stdout, then
// one line per request it took. A receiver is another machine in a daemon's life: run in the bench's own process, its
// accepting and parsing each attempt was charged to the heartbeat beside it.
import { createServer } from 'node:http';

const delayMs = Number(process.argv[2] ?? 10_000);
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    process.stdout.write('request\n');
    const timer = setTimeout(() => res.writeHead(204).end(), delayMs);
    res.on('close', () => clearTimeout(timer));
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`http://127.0.0.1:${port}/hook\n`);
});
// The bench closes stdin when it is done (or dies): so does this process.
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
