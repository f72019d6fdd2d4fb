// The types of /dashboard/vigil-client.js, which esbuild bundles from src/client/browser.ts at build time: the panels' JSDoc is checked against the typed client itself.
export * from '../../client/browser.js';
