/** Example: drive a running daemon over JSON-RPC with the typed client: status, a goal, a message and its reply. */
import { firstValueFrom, filter, timeout } from 'rxjs';
import { connect } from 'vigil';
import { daemonFromEnv } from './connect-from-env.js';

const client = await connect(await daemonFromEnv());
try {
  const status = await client.heartbeat.status();
  console.log(
    `beat ${status.beatCount}, ${status.state}, every ${status.intervalMs} ms, restored from ${status.restoredFrom ?? 'nothing'}`,
  );

  const goal = await client.goals.add({ title: 'Say hello to the example', priority: 5 });
  console.log(`added goal ${goal.id}: ${goal.title}`);

  // Subscribe before sending, so the reply cannot slip past.
  const replies = client.subscribe(['agent.reply']);
  const { turnId } = await client.agent.send({ text: 'Hello from examples/rpc-client.ts!', from: 'example' });
  const reply = await firstValueFrom(
    replies.pipe(
      filter((e) => e.type === 'agent.reply' && e.turnId === turnId),
      timeout(30_000),
    ),
  );
  console.log(`agent replied: ${reply.type === 'agent.reply' ? reply.text : ''}`);

  const budget = await client.budget.status();
  console.log(
    `budget: $${budget.spentTodayUsd.toFixed(4)} of $${budget.dailyCapUsd.toFixed(2)} spent today (${budget.state})`,
  );
  const checkpoints = await client.checkpoint.list({ limit: 3 });
  console.log(
    `newest checkpoints: ${checkpoints.map((c) => `${c.id} (beat ${c.beatCount})`).join(', ') || 'none yet'}`,
  );
} finally {
  await client.close();
}
