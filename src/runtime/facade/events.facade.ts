/** The facade's events area: the live feed and the persisted journal behind `events.*`. */
import type { Observable } from 'rxjs';
import type { VigilEvent } from '../../protocol/events.schema.js';
import type { LiveEvent } from '../../protocol/live-events.schema.js';
import type { JournalQuery } from '../../subsystems/journal/event-journal.js';
import type { RuntimeCore } from '../runtime-core.js';

export type { JournalQuery };

/** Events as the facade offers them. */
export class EventsFacade {
  /** Every event, as it happens. */
  readonly live$: Observable<VigilEvent>;
  /** Live-only events (a reply's text as it streams): no seq, never in the journal. */
  readonly liveOnly$: Observable<LiveEvent>;

  constructor(private readonly core: RuntimeCore) {
    this.live$ = core.parts.bus.events$;
    this.liveOnly$ = core.parts.bus.liveEvents$;
  }

  /** `events.history`: past events from the persisted journal, oldest first (see `JournalQuery`). */
  history(query: JournalQuery = {}): Promise<VigilEvent[]> {
    return this.core.parts.journal.query(query);
  }

  /** The newest seq in the journal (0 when empty), so a feed that starts now resumes without a gap. */
  lastSeq(): Promise<number> {
    return this.core.parts.journal.lastSeq();
  }
}
