/** `schedules.list`, `schedules.add`, `schedules.remove`, `schedules.pause`, `schedules.resume` (CONTRACT §11). */
import type { RpcHandlers } from '../rpc-router.js';

/** The schedules method group. */
export const schedulesMethods: RpcHandlers<
  'schedules.list' | 'schedules.add' | 'schedules.remove' | 'schedules.pause' | 'schedules.resume'
> = {
  'schedules.list': (_params, { runtime }) => runtime.listSchedules(),
  'schedules.add': (params, { runtime }) => runtime.addSchedule(params),
  'schedules.remove': (params, { runtime }) => runtime.removeSchedule(params.id),
  'schedules.pause': (params, { runtime }) => runtime.pauseSchedule(params.id),
  'schedules.resume': (params, { runtime }) => runtime.resumeSchedule(params.id),
};
