/** What the conformance driver does in each client scenario: the `oauth` field of the server's entry, and the tool it calls. */

/** The `oauth` field of a Streamable HTTP entry of `VIGIL_MCP_CONFIG`, as the operator would write it. */
export interface OAuthEntry {
  clientId?: string;
  clientSecret?: string;
  clientMetadataUrl?: string;
  scopes?: string[];
}

/** One scenario's plan. */
export interface ScenarioPlan {
  oauth?: OAuthEntry;
  /** The tool to call once the server is up (by its name on the server); none: connecting is the whole test. */
  tool?: { name: string; args: Record<string, unknown> };
}

/**
 * The Client ID Metadata Document URL the suite's `basic-cimd` server expects as the client id (it accepts it
 * without fetching it); an operator would give the URL where their own document is published.
 */
export const CIMD_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** The plan for `scenario`, with `rawContext` (`MCP_CONFORMANCE_CONTEXT`, JSON) where the scenario gives one. */
export function scenarioPlan(scenario: string, rawContext: string | undefined): ScenarioPlan {
  const context = rawContext === undefined ? {} : (JSON.parse(rawContext) as Record<string, unknown>);
  switch (scenario) {
    case 'initialize':
      return {};
    case 'tools_call':
      return { tool: { name: 'add_numbers', args: { a: 2, b: 3 } } };
    case 'sse-retry':
      return { tool: { name: 'test_reconnection', args: {} } };
    case 'auth/basic-cimd':
      return { oauth: { clientMetadataUrl: CIMD_CLIENT_METADATA_URL }, tool: TEST_TOOL };
    default:
      return { ...preRegistered(context), tool: TEST_TOOL };
  }
}

/** Every auth scenario's server offers this one tool. */
const TEST_TOOL = { name: 'test-tool', args: {} };

/** A client the scenario registered beforehand (`pre-registration`, the extensions): the operator pastes its id and secret. */
function preRegistered(context: Record<string, unknown>): Pick<ScenarioPlan, 'oauth'> {
  const clientId = context['client_id'];
  const clientSecret = context['client_secret'];
  if (typeof clientId !== 'string') return {};
  return { oauth: { clientId, ...(typeof clientSecret === 'string' ? { clientSecret } : {}) } };
}
