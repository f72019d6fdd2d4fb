/** A contract every supervised actor runs: start and stop, checkpoint round trip through its schema, and error routing. */
import { describe, expect, it } from 'vitest';
import { assign, createActor, setup, spawnChild } from 'xstate';
import type { AnyActorLogic, EventObject, TransitionActorLogic, TransitionSnapshot } from 'xstate';
import { ZodError } from 'zod';
import type { z } from 'zod';

/** What an actor brings to the contract. */
export interface ActorContractCase<TState, TEvent extends EventObject> {
  name: string;
  logic: TransitionActorLogic<TState, TEvent, TState>;
  stateSchema: z.ZodType<TState>;
  initialState: TState;
  validEvent: TEvent;
  /** An event the actor's event schema rejects. */
  invalidEvent: unknown;
}

/** Starts an actor on `input`, recording what its observers see. */
function startObserved<TState, TEvent extends EventObject>(
  logic: TransitionActorLogic<TState, TEvent, TState>,
  input: TState,
) {
  const actor = createActor(logic, { input });
  const errors: unknown[] = [];
  let completed = false;
  // An error listener keeps XState from rethrowing the crash as an unhandled error.
  actor.subscribe({ error: (error) => errors.push(error), complete: () => (completed = true) });
  actor.start();
  return { actor, errors, isCompleted: () => completed };
}

/** Runs the actor contract for one actor's logic. */
export function runActorContract<TState, TEvent extends EventObject>(c: ActorContractCase<TState, TEvent>): void {
  describe(`${c.name} actor contract`, () => {
    it('starts from its input with a context that parses with the state schema', () => {
      const { actor } = startObserved(c.logic, c.initialState);
      expect(actor.getSnapshot().status).toBe('active');
      expect(actor.getSnapshot().context).toStrictEqual(c.initialState);
      expect(() => c.stateSchema.parse(actor.getSnapshot().context)).not.toThrow();
      actor.stop();
    });

    it('keeps a schema-valid context after a valid event', () => {
      const { actor, errors } = startObserved(c.logic, c.initialState);
      actor.send(c.validEvent);
      expect(actor.getSnapshot().status).toBe('active');
      expect(errors).toEqual([]);
      expect(() => c.stateSchema.parse(actor.getSnapshot().context)).not.toThrow();
      actor.stop();
    });

    it('restores from a persisted context through JSON and the schema, and then behaves the same', () => {
      const { actor } = startObserved(c.logic, c.initialState);
      actor.send(c.validEvent);
      const persisted = actor.getPersistedSnapshot() as TransitionSnapshot<TState>;
      const checkpoint = c.stateSchema.parse(JSON.parse(JSON.stringify(persisted.context)));
      expect(checkpoint).toStrictEqual(actor.getSnapshot().context);

      const { actor: restored } = startObserved(c.logic, checkpoint);
      expect(restored.getSnapshot().context).toStrictEqual(actor.getSnapshot().context);
      actor.send(c.validEvent);
      restored.send(c.validEvent);
      expect(restored.getSnapshot().context).toStrictEqual(actor.getSnapshot().context);
      actor.stop();
      restored.stop();
    });

    it('stops cleanly without reporting an error', () => {
      const { actor, errors, isCompleted } = startObserved(c.logic, c.initialState);
      actor.send(c.validEvent);
      actor.stop();
      expect(errors).toEqual([]);
      expect(isCompleted()).toBe(true);
      expect(actor.getSnapshot().status).not.toBe('error');
    });

    it('enters the error status with a ZodError when sent an invalid event', () => {
      const { actor, errors } = startObserved(c.logic, c.initialState);
      actor.send(c.invalidEvent as TEvent);
      expect(actor.getSnapshot().status).toBe('error');
      expect(actor.getSnapshot().error).toBeInstanceOf(ZodError);
      expect(errors).toHaveLength(1);
    });

    it('reports a crash to the parent that spawned it as xstate.error.actor.<id>', () => {
      const parentLogic = setup({
        types: { context: {} as { errorEvents: string[]; errors: unknown[] } },
        actors: { child: c.logic as AnyActorLogic },
      }).createMachine({
        context: { errorEvents: [], errors: [] },
        entry: spawnChild('child', { id: 'supervised', input: c.initialState }),
        on: {
          'xstate.error.actor.supervised': {
            actions: assign({
              errorEvents: ({ context, event }) => [...context.errorEvents, event.type],
              errors: ({ context, event }) => [...context.errors, event.error],
            }),
          },
        },
      });
      const parent = createActor(parentLogic).start();
      const child = parent.getSnapshot().children['supervised'];
      expect(child).toBeDefined();
      child?.send(c.validEvent);
      expect(parent.getSnapshot().context.errorEvents).toEqual([]);

      child?.send(c.invalidEvent);
      expect(parent.getSnapshot().context.errorEvents).toEqual(['xstate.error.actor.supervised']);
      expect(parent.getSnapshot().context.errors[0]).toBeInstanceOf(ZodError);
      // The crash is contained: the parent keeps running.
      expect(parent.getSnapshot().status).toBe('active');
      parent.stop();
    });
  });
}
