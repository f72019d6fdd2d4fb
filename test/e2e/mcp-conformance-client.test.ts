/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, client mode) with Vigil as the client, the
 * scenarios without a sign-in and the draft ones Vigil passes. For each scenario the suite starts its server and runs
 * test/e2e/conformance/vigil-client-driver.ts, which starts a real daemon configured with that server, signs in where
 * the server asks (following the authorization URL as the operator's browser would), and calls a tool through Vigil's
 * tool caller. A FAILURE or a WARNING in the scenario's checks, no SUCCESS at all, or a non-zero exit of the suite
 * fails the test. mcp-conformance-client-auth.test.ts has the required sign-in scenarios; docs/testing.md lists every
 * client scenario with its state.
 */
import { describeClientScenarios } from './conformance/client-scenarios.js';

/** Without a sign-in; then the draft refresh-token scenarios (SEP-2207), which are not required but pass. */
const SCENARIOS = [
  'initialize',
  'tools_call',
  'sse-retry',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
] as const;

describeClientScenarios('the MCP conformance suite with Vigil as the client', SCENARIOS);
