/**
 * The push receiver of docs/feed-and-webhooks.md ("From a moment to a push"), run verbatim from
 * the page: a signed StreakAtRisk delivery becomes one push to the provider, a redelivery of it
 * none, a forged one 401, and a provider that fails 503 (so the service delivers it again).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { eventually, freePort, stopChild } from './support/process';
import { tempDir } from './support/service';
import { newSecret } from './support/webhook-receiver';

const ROOT = path.resolve(__dirname, '..');

/** The fenced js block of the page that starts with `// push-receiver.mjs`. */
function receiverSource(): string {
  const page = fs.readFileSync(path.join(ROOT, 'docs', 'feed-and-webhooks.md'), 'utf8');
  const block = /```js\n(\/\/ push-receiver\.mjs\n[\s\S]*?)```/.exec(page);
  if (!block) throw new Error('no push-receiver.mjs block in docs/feed-and-webhooks.md');
  return block[1];
}

let receiver: ChildProcess;
let provider: http.Server;
let providerAnswer = 200;
const pushes: { to: string; title: string; body: string }[] = [];
const secret = newSecret();
let url = '';

beforeAll(async () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'push-receiver.mjs'), receiverSource());
  // Where its `import 'standardwebhooks'` finds the package.
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  provider = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (providerAnswer === 200) pushes.push(JSON.parse(body));
      res.writeHead(providerAnswer).end();
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const port = await freePort();
  receiver = spawn(process.execPath, ['push-receiver.mjs'], {
    cwd: dir,
    env: {
      ...process.env,
      WEBHOOK_SECRET: secret,
      PORT: String(port),
      PUSH_URL: `http://127.0.0.1:${(provider.address() as { port: number }).port}/send`,
    },
    stdio: 'ignore',
  });
  url = `http://127.0.0.1:${port}/`;
  await eventually(async () => (await fetch(url, { method: 'POST', body: '{}' })).status === 401, 15_000);
});
afterAll(async () => {
  await stopChild(receiver);
  await new Promise((resolve) => provider.close(resolve));
});

/** A delivery as the service signs it (webhooks/sender.ts), of a StreakAtRisk. */
function delivery(id: string, signWith = secret) {
  const playerId = randomUUID();
  const now = new Date();
  const body = JSON.stringify({
    type: 'StreakAtRisk',
    timestamp: now.toISOString(),
    data: {
      eventId: id,
      playerId,
      stream: `player-${playerId}`,
      position: 1,
      time: now.getTime(),
      data: {
        playerId,
        streakUid: 's-daily',
        length: 5,
        endsAt: now.getTime() + 4 * 3_600_000,
        lastPeriod: 1,
        dueAt: now.getTime(),
      },
      metadata: {},
    },
  });
  const signature = new Webhook(signWith).sign(id, now, body);
  const headers = {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signature,
  };
  return { playerId, send: () => fetch(url, { method: 'POST', headers, body }) };
}

describe('the push receiver of the docs', () => {
  it('pushes a StreakAtRisk once, refuses a forged delivery, and answers 503 while the provider fails', async () => {
    providerAnswer = 503;
    const first = delivery(randomUUID());
    expect((await first.send()).status).toBe(503);
    expect(pushes).toEqual([]);

    providerAnswer = 200;
    expect((await first.send()).status).toBe(204);
    expect(pushes).toEqual([
      { to: `device-of-${first.playerId}`, title: 'Your 5-day streak ends in 4 h', body: 'One order keeps it going.' },
    ]);
    // The same delivery again (at least once): no second push.
    expect((await first.send()).status).toBe(204);
    expect(pushes).toHaveLength(1);

    expect((await delivery(randomUUID(), newSecret()).send()).status).toBe(401);
    expect(pushes).toHaveLength(1);
  });
});
