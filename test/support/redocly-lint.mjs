// Lints an OpenAPI document with Redocly's recommended rules and prints the problems as JSON.
// Its own process: @redocly/openapi-core is an ES module, and jest runs the tests as CommonJS.
import fs from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';

const file = process.argv[2];
const config = await createConfig({ extends: ['recommended'] });
const problems = await lintFromString({ source: fs.readFileSync(file, 'utf8'), absoluteRef: file, config });
process.stdout.write(
  JSON.stringify(
    problems.map((p) => ({
      rule: p.ruleId,
      severity: p.severity,
      message: p.message,
      where: p.location.map((l) => l.pointer).join(' '),
    })),
  ),
);
