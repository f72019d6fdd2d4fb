/** The one shape of a time on the wire: ISO-8601 with a zone. */
import { z } from 'zod';

/** An ISO-8601 timestamp with an offset or Z. */
export const isoTime = z.string().datetime({ offset: true });
