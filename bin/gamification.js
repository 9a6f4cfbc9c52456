#!/usr/bin/env node
// Runs the TypeScript CLI as it is: tsx's CommonJS loader compiles cli/*.ts on require, so no build step.
require('tsx/cjs');
require('../cli/main.ts');
