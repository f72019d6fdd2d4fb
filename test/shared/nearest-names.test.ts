import { describe, expect, it } from 'vitest';
import { RPC_METHODS } from '../../src/protocol/rpc-methods.js';
import { editDistance, nearestNames } from '../../src/shared/nearest-names.js';

const METHODS = Object.keys(RPC_METHODS);

describe('editDistance', () => {
  it.each([
    ['agent.send', 'agent.send', 0],
    ['agent.sned', 'agent.send', 1],
    ['agent.snd', 'agent.send', 1],
    ['agents.send', 'agent.send', 1],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
  ])('counts %s → %s as %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe('nearestNames', () => {
  it('offers the catalogue method one swap, typo or plural away, nearest first', () => {
    expect(nearestNames('agent.sned', METHODS)[0]).toBe('agent.send');
    expect(nearestNames('goal.add', METHODS, { separator: '.' })[0]).toBe('goals.add');
    expect(nearestNames('heartbeat.stauts', METHODS, { separator: '.' })).toEqual(['heartbeat.status']);
    expect(nearestNames('Agent.Send', METHODS)).toEqual(['agent.send']);
  });

  it('matches a bare name by the methods it ends, but not a namespaced one by its last part', () => {
    expect(nearestNames('send', METHODS, { separator: '.' })).toEqual(['agent.send']);
    expect(nearestNames('status', METHODS, { separator: '.' })).toEqual(
      expect.arrayContaining(['heartbeat.status', 'budget.status']),
    );
    expect(nearestNames('foo.get', METHODS, { separator: '.' })).toEqual([]);
  });

  it('offers nothing for a name far from every method (the specification examples stay bare)', () => {
    for (const name of ['foobar', 'foo.bar', 'no.such.method', 'nope.method', 'subtract', 'x']) {
      expect(nearestNames(name, METHODS, { separator: '.' })).toEqual([]);
    }
  });

  it('never offers the name itself, and at most `limit` names', () => {
    expect(nearestNames('agent.send', METHODS)).not.toContain('agent.send');
    expect(nearestNames('aaaa', ['aaab', 'aaba', 'abaa', 'baaa'], { limit: 2 })).toEqual(['aaab', 'aaba']);
  });
});
