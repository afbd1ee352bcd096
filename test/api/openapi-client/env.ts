// What the typed-client flows (flows.ts) are given: what a program cannot make through the API, the local
// HTTPS servers it points the marketplace at.
export interface FlowEnv {
  baseUrl: string;
  adminKey: string;
  /** A provider that answers every call with JSON (CONTRACT §6). */
  providerUrl: string;
  /** A receiver of webhooks and forwarded tickets. */
  receiverUrl: string;
  /** An external agent's instance: its agent card at /.well-known/agent-card.json, answering delegations. */
  instanceUrl: string;
  /** A capability the external agent's card offers. */
  instanceCapability: string;
}
