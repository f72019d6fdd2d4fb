/** `channels.list`, `.pairings`, `.approve`, `.senders`, `.revoke` (CONTRACT §18). */
import type { RpcHandlers } from '../rpc-router.js';

/** The channels method group. */
export const channelsMethods: RpcHandlers<
  'channels.list' | 'channels.pairings' | 'channels.approve' | 'channels.senders' | 'channels.revoke'
> = {
  'channels.list': (_params, { runtime }) => runtime.channels.list(),
  'channels.pairings': (params, { runtime }) => runtime.channels.pairings(params.channel),
  'channels.approve': (params, { runtime }) => runtime.channels.approve(params.channel, params.code),
  'channels.senders': (params, { runtime }) => runtime.channels.senders(params.channel),
  'channels.revoke': (params, { runtime }) => runtime.channels.revoke(params.channel, params.senderId),
};
