/** The budget ledger in LevelDB: every charge written (synced) before its result is applied, so a crash never gives money back. */
import { VigilError, describeError } from '../../errors.js';
import { createMutex } from '../../shared/mutex.js';
import { SUBLEVELS, writeSyncBatch, type VigilDb } from '../store/vigil-db.js';
import {
  LedgerCapSchema,
  LedgerDaySchema,
  WakeSignalSchema,
  type LedgerCap,
  type LedgerCharge,
  type LedgerDay,
  type WakeSignal,
} from './budget-ledger.schema.js';

const CAP_KEY = 'cap';
const WAKE_KEY = 'wake';
const PROBE_KEY = 'probe';
const dayKey = (day: string): string => `day:${day}`;
const chargeKey = (day: string, n: number): string => `charge:${day}:${String(n).padStart(10, '0')}`;

const emptyDay = (day: string): LedgerDay => ({
  dayKey: day,
  spentMicroUsd: 0,
  topUpMicroUsd: 0,
  charges: 0,
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

/** The ledger: one sync batch per write; reads validate what they find and treat a damaged record as absent. */
export class BudgetLedger {
  private readonly ledger;
  private readonly serial = createMutex();
  /** The newest day record read or written, so today's totals can be told without a read. */
  private latestDay: LedgerDay | undefined;

  constructor(private readonly db: VigilDb) {
    this.ledger = db.sublevel<string, unknown>(SUBLEVELS.budgetLedger, { valueEncoding: 'json' });
  }

  /** Appends a charge and the day's new total atomically; resolves once both are on disk. */
  charge(charge: LedgerCharge): Promise<LedgerDay> {
    return this.serial.run(async () => {
      const day = await this.readDay(charge.dayKey);
      const next: LedgerDay = {
        ...day,
        spentMicroUsd: day.spentMicroUsd + charge.costMicroUsd,
        charges: day.charges + 1,
        inputTokens: day.inputTokens + charge.usage.inputTokens,
        cacheReadTokens: day.cacheReadTokens + charge.usage.cacheReadTokens,
        cacheWriteTokens: day.cacheWriteTokens + charge.usage.cacheWriteTokens,
      };
      await this.write(
        [
          { key: chargeKey(charge.dayKey, next.charges), value: charge },
          { key: dayKey(charge.dayKey), value: next },
        ],
        `record a charge of ${charge.costMicroUsd} micro-dollars`,
      );
      this.latestDay = next;
      return next;
    });
  }

  /** Adds today's top-up and persists the wake signal with it, so a restart while asleep still wakes. */
  topUp(day: string, amountMicroUsd: number, at: number): Promise<LedgerDay> {
    return this.serial.run(async () => {
      const current = await this.readDay(day);
      const next: LedgerDay = { ...current, topUpMicroUsd: current.topUpMicroUsd + amountMicroUsd };
      const wake: WakeSignal = { requestedAt: at, reason: 'top_up' };
      await this.write(
        [
          { key: dayKey(day), value: next },
          { key: WAKE_KEY, value: wake },
        ],
        `record a top-up of ${amountMicroUsd} micro-dollars`,
      );
      this.latestDay = next;
      return next;
    });
  }

  /** Forgets the wake signal once the agent has woken. */
  clearWakeSignal(): Promise<void> {
    return this.serial.run(async () => {
      try {
        await writeSyncBatch(this.db, [{ type: 'del', sublevel: this.ledger, key: WAKE_KEY }]);
      } catch (err) {
        throw new VigilError('BUDGET_LEDGER_UNAVAILABLE', `Could not clear the wake signal: ${describeError(err)}`, {
          cause: err,
        });
      }
    });
  }

  /** Records a cap set at run time beside the configured cap it replaces. */
  setCap(cap: LedgerCap): Promise<void> {
    return this.serial.run(() => this.write([{ key: CAP_KEY, value: cap }], 'record the daily cap'));
  }

  /** The totals of `day` (zeros when nothing is recorded). */
  async readDay(day: string): Promise<LedgerDay> {
    const parsed = LedgerDaySchema.safeParse(await this.ledger.get(dayKey(day)));
    const read = parsed.success ? parsed.data : emptyDay(day);
    if (this.latestDay === undefined || read.dayKey >= this.latestDay.dayKey) this.latestDay = read;
    return read;
  }

  /**
   * The totals of `day` as last read or written through this ledger, without I/O (for a status asked synchronously);
   * zeros when this ledger has not seen that day, which after a boot's read of today means nothing was spent on it.
   */
  knownDay(day: string): LedgerDay {
    return this.latestDay?.dayKey === day ? this.latestDay : emptyDay(day);
  }

  /** The cap in force: a run-time cap while the configuration still says what it said then, else the configured one. */
  async readCap(configuredCapMicroUsd: number): Promise<number> {
    const parsed = LedgerCapSchema.safeParse(await this.ledger.get(CAP_KEY));
    if (parsed.success && parsed.data.configuredCapMicroUsd === configuredCapMicroUsd) return parsed.data.capMicroUsd;
    return configuredCapMicroUsd;
  }

  /** The pending wake signal, if any. */
  async readWakeSignal(): Promise<WakeSignal | null> {
    const parsed = WakeSignalSchema.safeParse(await this.ledger.get(WAKE_KEY));
    return parsed.success ? parsed.data : null;
  }

  /**
   * Retention: drops the per-think charges of days before `chargesFromDay` (each day's total keeps their sum) and the
   * day totals before `totalsFromDay`; returns how many records went. Callers pass days before today: today's total,
   * the one the budget is read from at boot (CONTRACT §6), is never touched.
   */
  compact(chargesFromDay: string, totalsFromDay: string): Promise<number> {
    return this.serial.run(async () => {
      const charges = await this.ledger.keys({ gte: 'charge:', lt: `charge:${chargesFromDay}` }).all();
      const days = await this.ledger.keys({ gte: 'day:', lt: `day:${totalsFromDay}` }).all();
      const stale = [...charges, ...days];
      if (stale.length > 0)
        await writeSyncBatch(
          this.db,
          stale.map((key) => ({ type: 'del' as const, sublevel: this.ledger, key })),
        );
      return stale.length;
    });
  }

  /** Drops charges and totals of days before `oldestKeptDay`, keeping the ledger bounded. */
  prune(oldestKeptDay: string): Promise<void> {
    return this.serial.run(async () => {
      await this.ledger.clear({ gte: 'charge:', lt: `charge:${oldestKeptDay}` });
      await this.ledger.clear({ gte: 'day:', lt: `day:${oldestKeptDay}` });
    });
  }

  private async write(puts: Array<{ key: string; value: unknown }>, what: string): Promise<void> {
    try {
      await writeSyncBatch(
        this.db,
        puts.map(({ key, value }) => ({ type: 'put' as const, sublevel: this.ledger, key, value })),
      );
    } catch (err) {
      throw new VigilError(
        'BUDGET_LEDGER_UNAVAILABLE',
        `Could not ${what} in the budget ledger: ${describeError(err)}`,
        { cause: err },
      );
    }
  }

  /** Checks the ledger can be written again (one tiny synced write); rejects with BUDGET_LEDGER_UNAVAILABLE if not. */
  probe(at: number): Promise<void> {
    return this.serial.run(() => this.write([{ key: PROBE_KEY, value: { at } }], 'write a probe'));
  }
}
