/**
 * What Vigil keeps per remote MCP server it signs in to (OAuth, CONTRACT §15): one record per server in the data dir's
 * LevelDB (sealed with the rest under VIGIL_CHECKPOINT_KEY). The SDK's own objects (client information, tokens,
 * discovery) are kept as the SDK handed them, so `auth()` reads back exactly what it saved (their `issuer` stamp too).
 */
import { z } from 'zod';

/** A JSON object the SDK produced and validates itself when it reads it back. */
const SdkObject = z.record(z.string(), z.unknown());

/** The tokens of one server, with when they were obtained and when the access token expires, on the runtime's clock. */
export const StoredTokensSchema = z.object({
  /** The SDK's `OAuthTokens` (access and refresh token, scope, issuer). */
  value: SdkObject,
  /** Epoch ms. */
  obtainedAt: z.number(),
  /** Epoch ms: `obtainedAt + expires_in`; absent when the authorization server gave no lifetime. */
  expiresAt: z.number().optional(),
});

/** One sign-in started and not yet finished: the callback's `state` is its key, single use, valid until `expiresAt`. */
export const PendingSignInSchema = z.object({
  state: z.string(),
  /** The PKCE verifier of this sign-in's authorization request. */
  codeVerifier: z.string(),
  authorizationUrl: z.string(),
  /** Epoch ms. */
  expiresAt: z.number(),
});

/** What a server's last 401 or 403 said, so a later sign-in asks for the same scopes at the same metadata. */
export const AuthChallengeSchema = z.object({
  resourceMetadataUrl: z.string().optional(),
  scope: z.string().optional(),
});

/** One server's record. */
export const McpOAuthRecordSchema = z.object({
  /** The SDK's `OAuthClientInformationMixed`: registered (DCR), a metadata document URL (CIMD) or pre-registered. */
  client: SdkObject.optional(),
  /** The redirect URI the stored client was registered with: a changed VIGIL_PUBLIC_URL registers again. */
  clientRedirectUrl: z.string().optional(),
  tokens: StoredTokensSchema.optional(),
  /** The SDK's `OAuthDiscoveryState` (protected resource and authorization server metadata). */
  discovery: SdkObject.optional(),
  challenge: AuthChallengeSchema.optional(),
  signIns: z.array(PendingSignInSchema),
});

export type StoredTokens = z.infer<typeof StoredTokensSchema>;
export type PendingSignIn = z.infer<typeof PendingSignInSchema>;
export type AuthChallenge = z.infer<typeof AuthChallengeSchema>;
export type McpOAuthRecord = z.infer<typeof McpOAuthRecordSchema>;

/** A record with nothing in it yet. */
export const EMPTY_OAUTH_RECORD: McpOAuthRecord = { signIns: [] };
