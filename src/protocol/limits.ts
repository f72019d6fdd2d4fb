/** Limits of the wire that both ends must agree on (CONTRACT §4). */

/** The largest WebSocket frame the gateway accepts; a bigger one closes the connection with 1009. */
export const MAX_FRAME_BYTES = 1024 * 1024;
