/**
 * Global setup of the "redis" test project (jest.config.js): the suites that need the shared Redis
 * run only when it answers PING. Otherwise the run stops at once with one line saying what to do,
 * instead of each suite failing on its own and jest hanging on reconnecting clients.
 */
import net from 'node:net';
import { TEST_REDIS_URL } from './redis';

const ANSWER_WAIT_MS = 2000;

/** Whether a Redis at `url` answers PING within ANSWER_WAIT_MS. */
function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port || 6379), hostname || '127.0.0.1');
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(ANSWER_WAIT_MS, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      // +PONG, or -NOAUTH and the like: either way a Redis is there; an error reply is not usable.
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

export default async function requireRedis(): Promise<void> {
  if (await answers(TEST_REDIS_URL)) return;
  // One line, no stack: the message is the whole story.
  process.stderr.write(
    `\nnpm test needs Redis: no Redis answers PING at ${TEST_REDIS_URL} (REDIS_URL). Start one (redis-server), or run only the embedded suites: npx jest --selectProjects embedded\n`,
  );
  process.exit(1);
}
