/**
 * The kit's demo page, at /kit: every web component of sdk/src/components on one page, for a
 * player whose Client key and token the page is given. The components are served as one ES module,
 * /kit/gm-components.js, bundled from their TypeScript sources (with the SDK's client) by esbuild
 * on first request: the service already runs on esbuild (tsx), so the module needs no build step
 * before a start and is always the sources' own. Like the console, the page's script and style are
 * files of the same origin (the Content-Security-Policy allows no inline script).
 */
import path from 'node:path';
import { build } from 'esbuild';
import express, { type Router } from 'express';

export const KIT_PATH = '/kit';
/** The components' module, for a page of the tenant's to import. */
export const COMPONENTS_PATH = `${KIT_PATH}/gm-components.js`;

const ASSETS = path.join(__dirname, 'assets');
const COMPONENTS_ENTRY = path.resolve(__dirname, '..', '..', 'sdk', 'src', 'components', 'index.ts');

/** The bundle, made once per process. */
async function bundle(): Promise<string> {
  const result = await build({
    entryPoints: [COMPONENTS_ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'eof',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

export function kitPages(): Router {
  const router = express.Router();
  let components: Promise<string> | null = null;
  router.get(KIT_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(path.join(ASSETS, 'index.html'));
  });
  router.get(COMPONENTS_PATH, async (_req, res) => {
    // A failed bundle is tried again by the next request (and fails the request as any fault does).
    components ??= bundle().catch((error: unknown) => {
      components = null;
      throw error;
    });
    const text = await components;
    // Any origin may load it (a tenant's page): it is code, not data.
    res.set({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'no-cache',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'Access-Control-Allow-Origin': '*',
    });
    res.send(text);
  });
  router.use(
    KIT_PATH,
    express.static(ASSETS, {
      index: false,
      redirect: false,
      cacheControl: false,
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    }),
  );
  return router;
}
