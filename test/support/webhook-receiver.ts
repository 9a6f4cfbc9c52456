/**
 * A real HTTP receiver of webhooks, as a client system would run one: it checks each request's
 * signature with the standardwebhooks package's own verifier and records what it accepted.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';

export interface Received {
  /** The `webhook-id` header: the event's id. */
  id: string;
  type: string;
  playerId: string | null;
  position: number;
  body: {
    type: string;
    timestamp: string;
    data: {
      eventId: string;
      playerId: string | null;
      stream: string;
      position: number;
      time: number;
      data: Record<string, unknown>;
      metadata: Record<string, unknown>;
    };
  };
}

export interface Receiver {
  url: string;
  /** Requests whose signature verified and that were answered 2xx, in arrival order. */
  accepted: Received[];
  /** Requests refused because their signature did not verify. */
  forged: number;
  /** Every request, with the status it was answered. */
  requests: { id: string; status: number }[];
  /** What to answer a verified request: a status, after an optional delay. */
  answer: (received: Received) => number | Promise<number>;
  close(): Promise<void>;
}

export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export async function startReceiver(secret: string): Promise<Receiver> {
  const verifier = new Webhook(secret);
  const receiver: Receiver = {
    url: '',
    accepted: [],
    forged: 0,
    requests: [],
    answer: () => 204,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    // The request's answer, once its body is in: the receiver's own answer (a test's) may take time.
    const answer = async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id']);
      let body: Received['body'];
      try {
        body = verifier.verify(raw, req.headers as Record<string, string>) as Received['body'];
      } catch {
        receiver.forged++;
        receiver.requests.push({ id, status: 401 });
        res.writeHead(401).end();
        return;
      }
      const received: Received = {
        id,
        type: body.type,
        playerId: body.data.playerId,
        position: body.data.position,
        body,
      };
      const status = await receiver.answer(received);
      receiver.requests.push({ id, status });
      if (status >= 200 && status < 300) receiver.accepted.push(received);
      res.writeHead(status).end();
    };
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void answer());
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** A webhooks file with one webhook, in `dir`. */
export function writeWebhooksFile(
  dir: string,
  hook: { name: string; url: string; secret: string; events: string[] },
): string {
  const file = path.join(dir, 'webhooks.yaml');
  fs.writeFileSync(
    file,
    [
      'webhooks:',
      `  - name: ${hook.name}`,
      `    url: ${hook.url}`,
      `    secret: "${hook.secret}"`,
      `    events: [${hook.events.join(', ')}]`,
    ].join('\n'),
  );
  return file;
}

/** For each player, the positions of the events first received for them, in arrival order. */
export function firstReceiptsByPlayer(accepted: readonly Received[]): Map<string, number[]> {
  const seen = new Set<string>();
  const byPlayer = new Map<string, number[]>();
  for (const r of accepted) {
    if (seen.has(r.id) || !r.playerId) continue;
    seen.add(r.id);
    const list = byPlayer.get(r.playerId) ?? [];
    list.push(r.position);
    byPlayer.set(r.playerId, list);
  }
  return byPlayer;
}
