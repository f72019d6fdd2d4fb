/** The `channels.*` methods of the RPC catalogue (CONTRACT §18), part of `RPC_METHODS`. */
import { z } from 'zod';
import {
  ChannelApprovedSchema,
  ChannelApproveParamsSchema,
  ChannelPairingsParamsSchema,
  ChannelPairingViewSchema,
  ChannelParamsSchema,
  ChannelRevokeParamsSchema,
  ChannelSenderViewSchema,
  ChannelViewSchema,
} from './channels.schema.js';
import { method, none } from './rpc-method-spec.js';

/** The channels methods, by name. */
export const CHANNEL_METHODS = {
  'channels.list': method(
    'read',
    'Every configured chat channel: its type, connection state (connecting, ok, failing, disabled), the error while failing, its last traffic and the replies not yet delivered.',
    none,
    z.array(ChannelViewSchema),
  ),
  'channels.pairings': method(
    'operate',
    'Strangers waiting with a live pairing code, on one channel or all.',
    ChannelPairingsParamsSchema,
    z.array(ChannelPairingViewSchema),
    ['CHANNEL_NOT_FOUND'],
  ),
  'channels.approve': method(
    'operate',
    'Allows the sender waiting with this pairing code to talk from now on (durable); channel.paired.',
    ChannelApproveParamsSchema,
    ChannelApprovedSchema,
    ['CHANNEL_NOT_FOUND', 'CHANNEL_CODE_INVALID', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
  'channels.senders': method(
    'read',
    'Who may talk on a channel: the senders of the configuration file and those an operator approved by pairing.',
    ChannelParamsSchema,
    z.array(ChannelSenderViewSchema),
    ['CHANNEL_NOT_FOUND'],
  ),
  'channels.revoke': method(
    'operate',
    "A sender approved by pairing may no longer talk: their next message is a stranger's again.",
    ChannelRevokeParamsSchema,
    z.literal(true),
    ['CHANNEL_NOT_FOUND', 'CHANNEL_SENDER_NOT_FOUND', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
} as const;
