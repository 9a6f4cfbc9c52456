/**
 * Asking the running service over its HTTP API, for what only it can answer (its in-memory read
 * models, its webhooks): at --url (default http://127.0.0.1:$PORT) with --key, GAMIFICATION_KEY,
 * or the development key kept in DATA_DIR.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RunConfig } from '../shared/adapters/config/env';
import { shown, UsageError } from './output';

export interface ServerOptions {
  url?: string;
  key?: string;
}

/** The `data` of the service's answer; throws one line naming the command when there is none. */
export async function askServer<T>(
  command: string,
  config: RunConfig,
  options: ServerOptions,
  request: { method: 'GET' | 'POST'; path: string; body?: unknown },
): Promise<T> {
  const url = `${(options.url ?? `http://127.0.0.1:${config.port}`).replace(/\/+$/, '')}${request.path}`;
  const key = options.key ?? process.env.GAMIFICATION_KEY ?? devKey(config.dataDir);
  if (!key)
    throw new UsageError(
      `${command}: no API key: pass --key, set GAMIFICATION_KEY, or run where DATA_DIR holds the dev-api-key`,
    );
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers: { AuthKey: key, ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
  } catch (error) {
    throw new Error(`${command}: no server answering at ${url} (${(error as Error).message}); start it or pass --url`, {
      cause: error,
    });
  }
  const body = (await response.json()) as { code: number; data: unknown };
  if (body.code !== 200) throw new Error(`${command}: the server answered ${body.code}: ${shown(body.data)}`);
  return body.data as T;
}

function devKey(dataDir: string): string | undefined {
  const file = path.join(dataDir, 'dev-api-key');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined;
}
