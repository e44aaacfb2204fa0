// The conformance suite imports `globSync` from `fs`, which Node has only
// from 22 on. Loaded with `node --import`, this hook serves the suite an `fs`
// that has it, from the `glob` package; on a Node that has it, it changes
// nothing.
import { register } from 'node:module';

const shim = new URL('./fs-with-glob.mjs', import.meta.url).href;

register(
  'data:text/javascript,' +
    encodeURIComponent(`
export async function resolve(specifier, context, next) {
  const fromSuite = context.parentURL && context.parentURL.includes('/@modelcontextprotocol/conformance/');
  if (fromSuite && (specifier === 'fs' || specifier === 'node:fs')) {
    return { url: ${JSON.stringify(shim)}, shortCircuit: true };
  }
  return next(specifier, context);
}`),
);
