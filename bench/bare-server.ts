/**
 * Child process: the baseline of figure 1. A bare express 5 endpoint that parses the same JSON
 * body (same parser and limit as the service) and answers an envelope `{code: 200, data}`:
 * what HTTP, JSON and express cost on this machine, without auth, rules or storage.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { cpuMicros, serveIpc } from './ipc';

const app = express();
app.disable('x-powered-by');
app.post('/v1/action/process', express.json({ limit: 64 * 1024, strict: false, type: () => true }), (req, res) => {
  const body = (req.body ?? {}) as { playerId?: unknown; referenceId?: unknown };
  res.status(200).json({
    code: 200,
    data: {
      playerId: body.playerId,
      referenceId: body.referenceId,
      badges: null,
      triggers: null,
      achievedLevel: null,
      earnedPoints: 0,
      deliverables: null,
    },
  });
});

const server = app.listen(0, () => {
  serveIpc(
    {
      stats: () => ({ maxRssBytes: process.resourceUsage().maxRSS * 1024 }),
      cpu: () => cpuMicros(),
      stop: () => {
        server.close();
        process.exit(0);
      },
    },
    { port: (server.address() as AddressInfo).port },
  );
});
