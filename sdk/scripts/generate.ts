/**
 * `npm run generate [-- <document> [<directory>]]` in sdk/: writes the SDK's generated sources
 * (sources.ts) from an OpenAPI document, a file or the URL of a running service (default
 * http://localhost:8080/openapi.json), into a directory (default src/generated).
 */
import fs from 'node:fs';
import path from 'node:path';
import { sdkSources } from './sources.ts';

async function main(): Promise<void> {
  const [from = 'http://localhost:8080/openapi.json', into = path.join(__dirname, '..', 'src', 'generated')] =
    process.argv.slice(2);
  const document: unknown = /^https?:/.test(from)
    ? await (await fetch(from)).json()
    : JSON.parse(fs.readFileSync(from, 'utf8'));
  fs.mkdirSync(into, { recursive: true });
  for (const [file, text] of Object.entries(await sdkSources(document))) fs.writeFileSync(path.join(into, file), text);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
