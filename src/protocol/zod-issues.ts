/** Zod failures in words: the one-line account every parse-at-the-edge error message uses. */
import type { ZodError } from 'zod';

/** A short one-line account of a schema failure: the first few issues with their paths. */
export function summariseIssues(error: ZodError): string {
  const shown = error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  const more = error.issues.length > shown.length ? ` (and ${error.issues.length - shown.length} more)` : '';
  return shown.join('; ') + more;
}
