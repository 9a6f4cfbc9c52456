/**
 * The interactive API reference at /docs: Swagger UI on /openapi.json, every file served by the
 * service itself (no CDN: it works offline and under a same-origin Content-Security-Policy).
 */
import path from 'node:path';
import express from 'express';

export const REFERENCE_PATH = '/docs';
/** Where the page's scripts, styles and icons are served; a prefix, unlike the page itself. */
export const REFERENCE_ASSETS_PATH = '/docs/assets/';

const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const INITIALIZER = path.join(__dirname, 'initializer.js');

/** The files the page loads, by the name it loads them under: the package's, and the initializer. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': path.join(SWAGGER_UI_DIR, 'swagger-ui.css'),
  'swagger-ui-bundle.js': path.join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js'),
  'favicon-32x32.png': path.join(SWAGGER_UI_DIR, 'favicon-32x32.png'),
  'favicon-16x16.png': path.join(SWAGGER_UI_DIR, 'favicon-16x16.png'),
  'initializer.js': INITIALIZER,
};

const asset = (name: keyof typeof ASSETS & string) => `${REFERENCE_ASSETS_PATH}${name}`;

/** No inline script or style: only the files above. */
export const REFERENCE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Gamification engine API reference</title>
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
<link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}" sizes="32x32">
<link rel="icon" type="image/png" href="${asset('favicon-16x16.png')}" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<noscript>This page needs JavaScript; the machine-readable document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('initializer.js')}"></script>
</body>
</html>
`;

/** The page, and its files (anything else under the assets path is 404). */
export function referenceRouter(): express.Router {
  const router = express.Router();
  router.get(REFERENCE_PATH, (_req, res) => {
    res.type('html').send(REFERENCE_PAGE);
  });
  router.get(`${REFERENCE_ASSETS_PATH}:name`, (req, res, next) => {
    const file = Object.hasOwn(ASSETS, req.params.name) ? ASSETS[req.params.name] : undefined;
    if (!file) return next();
    // The files change only with the package's version: an hour's caching spares reloads.
    res.sendFile(file, { maxAge: 3_600_000 });
  });
  return router;
}
