/**
 * A refused body never costs the client its connection (issue 44, point 10): on one keep-alive
 * connection, request after request whose body is refused (nested too deeply, too large, not
 * JSON, a charset or an encoding the service does not read) each gets its whole 1001 answer, with
 * an Idempotency-Key or without, and the connection then still serves an ordinary request.
 */
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { KEYS, startTestService, type TestService } from './support/service';
import { MAX_BODY_BYTES } from '../shared/adapters/http/route';
import { MAX_BODY_DEPTH } from '../shared/adapters/http/app';

let t: TestService;
let port: number;
beforeAll(async () => {
  t = await startTestService();
  port = ((await t.service.listen(0)).address() as AddressInfo).port;
});
afterAll(() => t.close());

/** One keep-alive connection that sends raw requests and reads their answers one at a time. */
class Connection {
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  closed = false;
  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiting?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
    socket.on('error', () => undefined);
  }

  static open(): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends the request's head and body, and reads its whole answer (a Content-Length body). */
  async exchange(head: string[], body: Buffer | string): Promise<{ status: number; head: string; body: string }> {
    this.socket.write([...head, ''].join('\r\n') + '\r\n');
    this.socket.write(body);
    for (;;) {
      const answer = this.take();
      if (answer) return answer;
      if (this.closed) throw new Error(`connection closed before the answer (${this.buffered.length} bytes read)`);
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = null;
    }
  }

  private take(): { status: number; head: string; body: string } | null {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const head = this.buffered.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
    if (!(this.buffered.length >= end + 4 + length)) return null;
    const body = this.buffered.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffered = this.buffered.subarray(end + 4 + length);
    return { status: Number(head.split(' ')[1]), head, body };
  }

  close(): void {
    this.socket.destroy();
  }
}

const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const headOf = (length: number | null, extra: string[] = []) => [
  'POST /v1/action/process HTTP/1.1',
  'Host: 127.0.0.1',
  'Connection: keep-alive',
  `AuthKey: ${KEYS.server}`,
  ...extra,
  ...(length === null ? ['Transfer-Encoding: chunked'] : [`Content-Length: ${length}`]),
];
const chunked = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n0\r\n\r\n`;

/** Each kind of refused body: the request's head and body, and the answer's status. */
const refused: [string, () => { head: string[]; body: string; status: number }][] = [
  ['nested too deeply', () => ({ head: headOf(Buffer.byteLength(deep(1000))), body: deep(1000), status: 400 })],
  ['nested too deeply, chunked', () => ({ head: headOf(null), body: chunked(deep(MAX_BODY_DEPTH + 1)), status: 400 })],
  [
    'too large, nested too deeply',
    () => ({ head: headOf(MAX_BODY_BYTES * 2), body: deep(MAX_BODY_BYTES), status: 413 }),
  ],
  ['not JSON', () => ({ head: headOf(5), body: '{nope', status: 400 })],
  [
    'in a charset the service does not read',
    () => ({
      head: headOf(Buffer.byteLength(deep(100)), ['Content-Type: application/json; charset=x-unknown']),
      body: deep(100),
      status: 400,
    }),
  ],
  [
    'in an encoding the service does not read',
    () => ({
      head: headOf(Buffer.byteLength(deep(100)), ['Content-Encoding: x-unknown']),
      body: deep(100),
      status: 400,
    }),
  ],
];

describe('a keep-alive connection after refused bodies', () => {
  it.each(refused)(
    'answers 200 requests whose body is %s, each with its 1001, and stays usable',
    async (_kind, make) => {
      const connection = await Connection.open();
      try {
        for (let i = 0; i < 200; i++) {
          const { head, body, status } = make();
          const withKey = i % 2 === 0 ? [...head, `Idempotency-Key: ${randomUUID()}`] : head;
          const answer = await connection.exchange(withKey, body);
          expect({ i, status: answer.status, code: JSON.parse(answer.body).code }).toEqual({ i, status, code: 1001 });
          // Kept open, and saying for how long when idle: a client closes first instead of racing the server's close.
          expect({ i, head: answer.head }).toEqual({
            i,
            head: expect.stringMatching(/\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5(\r\n|$)/i),
          });
        }
        const action = JSON.stringify({ name: 'login', playerId: randomUUID(), referenceId: randomUUID() });
        const ordinary = await connection.exchange(
          headOf(Buffer.byteLength(action), ['Content-Type: application/json']),
          action,
        );
        expect([ordinary.status, JSON.parse(ordinary.body).code]).toEqual([200, 200]);
        expect(connection.closed).toBe(false);
      } finally {
        connection.close();
      }
    },
    60_000,
  );
});
