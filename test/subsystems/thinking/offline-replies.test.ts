import { describe, expect, it } from 'vitest';
import { appraiseText, describeMood } from '../../../src/subsystems/thinking/offline-appraisal.js';
import { classifyMessage, pickFocusGoal } from '../../../src/subsystems/thinking/offline-replies.js';
import { excerpt } from '../../../src/subsystems/thinking/offline-text.js';

describe('classifyMessage', () => {
  it.each([
    ['remember the milk', { kind: 'remember', subject: 'the milk' }],
    ['Remember: standup at 9.', { kind: 'remember', subject: 'standup at 9' }],
    ['goal: ship v1', { kind: 'goal', subject: 'ship v1' }],
    ['add goal ship v1', { kind: 'goal', subject: 'ship v1' }],
    ['research   tide\npools', { kind: 'research', subject: 'tide pools' }],
    ['please look into comets', { kind: 'research', subject: 'comets' }],
    ['how are you?', { kind: 'question' }],
    ['what is your goal', { kind: 'question' }],
    ['Hello!', { kind: 'greeting' }],
    ['good morning', { kind: 'greeting' }],
    ['remember', { kind: 'reflect' }],
    ['I had a long day', { kind: 'reflect' }],
  ])('reads %j as %j', (text, intent) => {
    expect(classifyMessage(text)).toEqual(intent);
  });
});

describe('pickFocusGoal', () => {
  const g = (id: string, priority: number, status: 'active' | 'completed' = 'active', dueAt?: number) => ({
    id,
    title: id,
    priority,
    progress: 0,
    status,
    createdAt: 0,
    updatedAt: 0,
    ...(dueAt === undefined ? {} : { dueAt }),
  });

  it('prefers the named active goal, then priority, then the earliest due', () => {
    const goals = [g('a', 3), g('b', 9, 'completed'), g('c', 7), g('d', 7, 'active', 100)];
    expect(pickFocusGoal({ goals, focusGoalId: 'a' })?.id).toBe('a');
    expect(pickFocusGoal({ goals, focusGoalId: 'b' })?.id).toBe('d');
    expect(pickFocusGoal({ goals: [] })).toBeUndefined();
  });
});

describe('appraiseText', () => {
  it('is neutral in valence for neutral text and stays within bounds for extreme text', () => {
    expect(appraiseText('the cat sat').delta.valence).toBe(0);
    const extreme = appraiseText('awful '.repeat(50) + '!'.repeat(50) + '?'.repeat(50));
    expect(extreme.delta).toEqual({ valence: -0.5, arousal: 0.35, certainty: -0.3 });
    expect(extreme.intensity).toBe(1);
  });
});

describe('describeMood', () => {
  it.each([
    [0.5, 0.8, 'excited'],
    [0.5, 0.2, 'content'],
    [-0.5, 0.8, 'tense'],
    [-0.5, 0.2, 'low'],
    [0, 0.9, 'alert'],
    [0, 0.2, 'calm'],
  ])('calls valence %d and arousal %d %s', (valence, arousal, mood) => {
    expect(describeMood({ valence, arousal, dominance: 0, certainty: 0.5, goalCongruence: 0 })).toBe(mood);
  });
});

describe('excerpt', () => {
  it('collapses whitespace and cuts long text with an ellipsis without splitting a code point', () => {
    expect(excerpt('  a \n b  ')).toBe('a b');
    expect(excerpt('😀'.repeat(10), 5)).toBe('😀😀😀😀…');
  });
});
