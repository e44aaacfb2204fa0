// `node:fs`, plus `globSync` where Node lacks it (see fs-globsync.mjs).
import * as fs from 'node:fs';
import { globSync as glob } from 'glob';

export * from 'node:fs';
export default fs.default ?? fs;
export const globSync = fs.globSync ?? ((pattern, options) => glob(pattern, options));
