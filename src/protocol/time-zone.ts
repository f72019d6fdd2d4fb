/** The one check of an IANA time zone name, shared by the configuration (`VIGIL_TIMEZONE`) and schedules. */

/** True when `zone` is a time zone this Node's Intl knows (IANA names, `UTC`, `Etc/…`). */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    // Intl throws RangeError for unknown zones: that is the whole check.
    return false;
  }
}
