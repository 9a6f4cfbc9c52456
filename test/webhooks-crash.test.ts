/**
 * A kill -9 of the service while it delivers webhooks: after a restart on the same data, every
 * event the webhook takes has reached the receiver at least once, and each player's events
 * first arrived in log order.
 */
import { randomUUID } from 'node:crypto';
import { KEYS, tempDir, writeKeysFile } from './support/service';
import { eventually, startServerProcess, stopProcess } from './support/process';
import { firstReceiptsByPlayer, newSecret, startReceiver, writeWebhooksFile } from './support/webhook-receiver';

jest.setTimeout(120_000);

const PLAYERS = 10;
const ACTIONS_PER_PLAYER = 30;

it('a kill -9 mid-stream loses no event: each arrives at least once, each player in order', async () => {
  const secret = newSecret();
  const receiver = await startReceiver(secret);
  // Slow enough that the kill comes with most deliveries still to make.
  receiver.answer = () => new Promise((resolve) => setTimeout(() => resolve(200), 10));
  const dataDir = tempDir();
  const env = {
    DATA_DIR: dataDir,
    API_KEYS_FILE: writeKeysFile(dataDir),
    WEBHOOKS_FILE: writeWebhooksFile(dataDir, { name: 'crm', url: receiver.url, secret, events: ['ActionProcessed'] }),
    WEBHOOK_CONCURRENCY: '2',
  };
  let service = await startServerProcess(env);
  try {
    const players = Array.from({ length: PLAYERS }, () => randomUUID());
    const post = (playerId: string) =>
      fetch(`${service.url}/v1/action/process`, {
        method: 'POST',
        headers: { AuthKey: KEYS.server, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'purchase', referenceId: randomUUID(), playerId }),
      });
    for (let round = 0; round < ACTIONS_PER_PLAYER; round++) {
      const answers = await Promise.all(players.map(post));
      for (const a of answers) expect(a.status).toBe(200);
    }
    const total = PLAYERS * ACTIONS_PER_PLAYER;
    await eventually(async () => expect(receiver.accepted.length).toBeGreaterThanOrEqual(total / 5), 30_000, 20);
    expect(receiver.accepted.length).toBeLessThan(total);
    await stopProcess(service.child, 'SIGKILL');
    const beforeRestart = receiver.accepted.length;

    service = await startServerProcess(env);
    const logged = await actionEventIds(service.url);
    expect(logged.size).toBe(total);
    await eventually(
      async () => expect(logged.size - new Set(receiver.accepted.map((r) => r.id)).size).toBe(0),
      60_000,
      200,
    );
    for (const id of new Set(receiver.accepted.map((r) => r.id))) expect(logged.has(id)).toBe(true);
    const byPlayer = firstReceiptsByPlayer(receiver.accepted);
    for (const p of players) expect(byPlayer.get(p)).toEqual([...byPlayer.get(p)!].sort((a, b) => a - b));
    // Those delivered after the restart were not all sent again: it resumed from its cursor.
    expect(receiver.accepted.length).toBeLessThan(beforeRestart + total);
  } finally {
    await stopProcess(service.child, 'SIGKILL');
    await receiver.close();
  }
});

/** The ids of every ActionProcessed event in the log, from the event feed. */
async function actionEventIds(url: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let after = 0;
  for (;;) {
    const page = (await (
      await fetch(`${url}/v1/feed/events?types=ActionProcessed&after=${after}`, { headers: { AuthKey: KEYS.server } })
    ).json()) as { data: { events: { id: string }[]; next: number; head: number } };
    for (const e of page.data.events) ids.add(e.id);
    if (page.data.next >= page.data.head) return ids;
    after = page.data.next;
  }
}
