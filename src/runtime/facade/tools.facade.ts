/** The facade's tools area: `tools.list`, the MCP tools as clients see them. */
import type { ToolView } from '../../protocol/tools.schema.js';
import type { RuntimeCore } from '../runtime-core.js';

/** `tools.list`: every registered tool in the registry's order (by name), with its server's availability now. */
export function listTools(core: RuntimeCore): ToolView[] {
  return core.parts.tools.list().map(({ name, server, tool, description, requireApproval, idempotent, available }) => ({
    name,
    server,
    tool,
    description,
    requireApproval,
    idempotent,
    available,
  }));
}
