/**
 * The official MCP conformance suite in client mode with Vigil as the client: every `auth/*` scenario of the
 * 2025-11-25 and 2025-03-26 protocol versions (discovery, client identification, scopes and step-up, token endpoint
 * authentication, the March 2025 fallbacks). Each runs a real daemon that signs in with the MCP SDK's client auth,
 * the driver following the authorization URL to the gateway's `/oauth/callback` as the operator's browser would, and
 * then calls the scenario’s tool. See conformance/client-scenarios.ts for how a run is judged.
 */
import { expect } from 'vitest';
import { describeClientScenarios } from './conformance/client-scenarios.js';

const SCENARIOS = [
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  // A draft scenario, run here because it is quick: Vigil refuses at once, with mcp.auth_failed.
  'auth/resource-mismatch',
] as const;

/** The scenarios the client is expected to give up (its exit code is not judged), and what the driver then says. */
const GIVES_UP = new Map<string, RegExp>([
  // The server refuses every token.
  ['auth/scope-retry-limit', /./],
  // The protected resource metadata names another resource: refused before any sign-in, said by mcp.auth_failed.
  ['auth/resource-mismatch', /the sign-in failed: the server’s protected resource metadata names a resource other/],
]);

describeClientScenarios(
  'the MCP conformance suite’s sign-in scenarios with Vigil as the client',
  SCENARIOS,
  (scenario, run) =>
    // The driver's "the tool answered", or what it says when it gives up as the scenario expects.
    expect(run.driverOutput).toMatch(GIVES_UP.get(scenario) ?? /reply: mcp__conformance__\S+ returned:/),
);
