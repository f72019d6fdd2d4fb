import { describe, expect, it } from 'vitest';
import type { TurnState } from '../../src/heartbeat/heartbeat.types.js';
import { IDLE_TIMERS } from '../../src/heartbeat/turn-tracker.js';
import { OpenTurns } from '../../src/runtime/open-turns.js';

function turns(...turnIds: string[]): TurnState {
  return {
    ...IDLE_TIMERS,
    unreadReplies: 0,
    pending: turnIds.map((turnId) => ({ turnId, text: 'hello', from: 'user', at: 0 })),
  };
}

describe('OpenTurns', () => {
  it('answers from the seed’s turns before it follows a heartbeat: an unknown turn is closed, not open by default', () => {
    const open = new OpenTurns(turns('t-1'));
    expect(open.isOpen('t-1')).toBe(true);
    expect(open.isOpen('t-2')).toBe(false);
  });

  it('reads the heartbeat’s turns at each question once it follows them', () => {
    const open = new OpenTurns(turns('t-1'));
    let current = turns('t-2');
    open.follow(() => current);
    expect(open.isOpen('t-1')).toBe(false);
    expect(open.isOpen('t-2')).toBe(true);
    current = turns();
    expect(open.isOpen('t-2')).toBe(false);
  });

  it('follows one heartbeat only', () => {
    const open = new OpenTurns(turns());
    open.follow(() => turns());
    expect(() => open.follow(() => turns())).toThrow(/already follows/);
  });
});
