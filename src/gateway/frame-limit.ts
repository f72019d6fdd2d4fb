/** The gateway's frame size limit, in a module of its own so the command line can check an import without loading the gateway. */

/** The largest frame a client may send (CONTRACT §4); larger ones close the connection with 1009. */
export const MAX_FRAME_BYTES = 1024 * 1024;
