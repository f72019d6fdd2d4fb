/** Pairing codes (CONTRACT §18): 8 characters of A–Z and 2–9, from a cryptographic source, valid one hour. */
import { randomInt } from 'node:crypto';

/** The characters a code is made of: no 0 or 1, so a code read aloud is never mistaken for O or I. */
export const PAIRING_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ23456789';
/** A code's length. */
export const PAIRING_CODE_LENGTH = 8;
/** How long a code is valid, and how often a stranger gets a pairing reply at most. */
export const PAIRING_TTL_MS = 3_600_000;

/** A new code; `pick` (default: crypto) chooses an index below its argument. */
export function newPairingCode(pick: (below: number) => number = randomInt): string {
  let code = '';
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++) code += PAIRING_ALPHABET[pick(PAIRING_ALPHABET.length)];
  return code;
}

/** A code as typed (spaces and case forgiven), for comparison. */
export function normalisePairingCode(typed: string): string {
  return typed.replace(/[\s-]/g, '').toUpperCase();
}

/** What a stranger is told: how to be let in, and nothing about the agent's owner. */
export function pairingReplyText(code: string): string {
  return `I don't know you yet. To talk with me, ask my operator to approve this pairing code: ${code} (valid for one hour).`;
}
