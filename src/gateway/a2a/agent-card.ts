/**
 * The Agent Card (`/.well-known/agent-card.json`): who the agent is, from its identity text; where to call it (the
 * JSON-RPC endpoint `/a2a`); and how (an HTTP bearer: the gateway's tokens, `talk` to send a message).
 */
import type { AgentCard } from '@a2a-js/sdk';
import { VIGIL_VERSION } from '../../shared/version.js';

/** The JSON-RPC endpoint's path. */
export const A2A_PATH = '/a2a';
/** Where A2A clients look for the card. */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

const MAX_DESCRIPTION = 1000;

/**
 * The name and description an identity text gives: the name from its first "You are NAME" (else "Vigil"), the
 * description its first paragraph that is not a heading.
 */
export function identitySummary(identity: string): { name: string; description: string } {
  const name = /\bYou are ([A-Z][\w-]*(?: [A-Z][\w-]*)*)/.exec(identity)?.[1] ?? 'Vigil';
  const paragraph = identity
    .split(/\n\s*\n/)
    .map((block) => block.replace(/\s+/g, ' ').trim())
    .find((block) => block !== '' && !block.startsWith('#'));
  const description = paragraph ?? `${name}, a long-lived agent run by Vigil.`;
  return {
    name,
    description: description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION - 1)}…` : description,
  };
}

/** The card for an agent of identity `identity` whose gateway is reached at `baseUrl`. */
export function buildAgentCard(identity: string, baseUrl: string): AgentCard {
  const { name, description } = identitySummary(identity);
  return {
    name,
    description,
    supportedInterfaces: [
      { url: `${baseUrl}${A2A_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    ],
    provider: undefined,
    version: VIGIL_VERSION,
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      vigilToken: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            description:
              'A Vigil gateway token (`vigil tokens create`): scope talk or operate to send a message; a read token reads only the tasks it created (none).',
            scheme: 'Bearer',
            bearerFormat: '',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { vigilToken: { list: [] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'converse',
        name: 'Converse',
        description: `Send ${name} a message; it answers as one turn of its ongoing conversation, with its memory, goals and tools.`,
        tags: ['conversation', 'long-lived'],
        examples: [],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/**
 * The same card in A2A 0.3's shape, for a caller that sends no `A2A-Version` (or a 0.x one): the agents built on 0.3
 * SDKs (LangGraph's, most of those deployed) read `url` and `preferredTransport`, which 1.0 replaced by
 * `supportedInterfaces`.
 */
export function legacyAgentCard(identity: string, baseUrl: string): Record<string, unknown> {
  const card = buildAgentCard(identity, baseUrl);
  const url = `${baseUrl}${A2A_PATH}`;
  return {
    protocolVersion: '0.3.0',
    name: card.name,
    description: card.description,
    url,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url, transport: 'JSONRPC' }],
    version: card.version,
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    securitySchemes: {
      vigilToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'A Vigil gateway token (`vigil tokens create`): scope talk or operate to send a message.',
      },
    },
    security: [{ vigilToken: [] }],
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ id, name, description, tags, examples, inputModes, outputModes }) => ({
      id,
      name,
      description,
      tags,
      examples,
      inputModes,
      outputModes,
    })),
  };
}

/** Whether a request's `A2A-Version` asks for A2A 0.3: absent (0.3 clients send none) or a 0.x version. */
export function asksForLegacy(version: string | string[] | undefined): boolean {
  const value = Array.isArray(version) ? version[0] : version;
  return value === undefined || value.trim() === '' || /^0\./.test(value.trim());
}
