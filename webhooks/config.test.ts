import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { startService } from '../app/service';
import { ConfigurationError } from '../app/configuration-error';
import { readRunConfig } from '../shared/adapters/config/env';
import { tempDir, writeKeysFile } from '../test/support/service';
import { parseWebhooksFile } from './config';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

describe('the webhooks file', () => {
  it('gives each webhook its name, URL, secret and event types', () => {
    const parsed = parseWebhooksFile(
      `webhooks:\n  - { name: crm, url: "https://crm.example.com/hooks", secret: "${SECRET}", events: [ActionProcessed, PlayerRegistered] }\n`,
      'webhooks.yaml',
    );
    expect(parsed).toEqual({
      ok: true,
      hooks: [
        {
          name: 'crm',
          url: 'https://crm.example.com/hooks',
          secret: SECRET,
          events: new Set(['ActionProcessed', 'PlayerRegistered']),
        },
      ],
    });
  });

  it('names every problem by its place in the file, one line each', () => {
    const short = `whsec_${Buffer.alloc(8).toString('base64')}`;
    const parsed = parseWebhooksFile(
      JSON.stringify({
        webhooks: [
          { name: 'crm', url: 'ftp://x.example.com', secret: SECRET, events: ['ActionProcessed'] },
          { name: 'crm', url: 'https://x.example.com', secret: 'plain', events: ['Nope'] },
          { name: 'bad name', url: 'not a url', secret: short, events: [] },
        ],
      }),
      'webhooks.json',
    );
    expect(parsed).toEqual({
      ok: false,
      problems: [
        'webhooks[0].url: must be an http or https URL',
        'webhooks[1].secret: must be whsec_ followed by base64 (e.g. whsec_ and 32 random bytes in base64)',
        'webhooks[1].events[0]: Nope is not an event type',
        'webhooks[2].name: must be 1 to 64 letters, digits, _ or -',
        'webhooks[2].url: must be an absolute URL',
        'webhooks[2].secret: must hold at least 24 bytes',
        'webhooks[2].events: must name at least one event type',
      ],
    });
    expect(
      parseWebhooksFile(
        `webhooks:\n  - { name: a, url: "https://a.example.com", secret: "${SECRET}", events: [ActionProcessed] }\n  - { name: a, url: "https://b.example.com", secret: "${SECRET}", events: [ActionProcessed] }\n`,
        'w.yaml',
      ),
    ).toEqual({ ok: false, problems: ['webhooks[1].name: duplicate name "a"'] });
    expect(parseWebhooksFile('webhooks: [', 'w.yaml')).toEqual({
      ok: false,
      problems: [expect.stringMatching(/^not valid YAML: /)],
    });
  });

  it('stops the start with those lines; a role without a lasting read store refuses webhooks', async () => {
    const dir = tempDir();
    const start = (env: Record<string, string>, role?: 'command') =>
      startService({
        config: readRunConfig({ DATA_DIR: dir, API_KEYS_FILE: writeKeysFile(dir), ...env }),
        role,
        log: pino({ level: 'silent' }),
      });
    await expect(start({ WEBHOOKS_FILE: path.join(dir, 'none.yaml') })).rejects.toEqual(
      new ConfigurationError([`WEBHOOKS_FILE: no file at ${path.join(dir, 'none.yaml')}`]),
    );
    const bad = path.join(dir, 'webhooks.yaml');
    fs.writeFileSync(
      bad,
      'webhooks:\n  - { name: crm, url: "https://crm.example.com", secret: nope, events: [ActionProcessed] }\n',
    );
    await expect(start({ WEBHOOKS_FILE: bad })).rejects.toEqual(
      new ConfigurationError([
        'webhooks.yaml: webhooks[0].secret: must be whsec_ followed by base64 (e.g. whsec_ and 32 random bytes in base64)',
      ]),
    );
    fs.writeFileSync(
      bad,
      `webhooks:\n  - { name: crm, url: "https://crm.example.com", secret: "${SECRET}", events: [ActionProcessed] }\n`,
    );
    await expect(start({ WEBHOOKS_FILE: bad }, 'command')).rejects.toEqual(
      new ConfigurationError([
        'WEBHOOKS_FILE: the command role keeps webhook cursors in the read store, which must outlive it: set MONGO_URL',
      ]),
    );
  });
});
