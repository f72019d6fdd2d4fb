/** A server's CallToolResult as the model is given it: text passed through up to a cap, images kept if the API takes them, resources described. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ExternalToolContent, ExternalToolResult } from '../thinking/think-tools.js';

/** The most text of one result the model is given (UTF-8 bytes); the rest is cut with a note saying how much. */
export const TOOL_RESULT_TEXT_CAP_BYTES = 16 * 1024;

/** The largest image (base64 characters) passed on as an image; a larger one is described instead. */
export const TOOL_RESULT_IMAGE_CAP_CHARS = 1024 * 1024;

// The image types the Messages API accepts in a tool_result.
const API_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** A result shaped for the model, its stored text, and the size of what the server sent. */
export interface ShapedToolOutput {
  result: ExternalToolResult;
  /** All the text parts joined (already capped), images as a line describing them: what the log keeps. */
  text: string;
  resultBytes: number;
}

const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** Shapes `raw` for the model, cutting text beyond `capBytes` and saying so. */
export function shapeToolOutput(raw: CallToolResult, capBytes = TOOL_RESULT_TEXT_CAP_BYTES): ShapedToolOutput {
  const resultBytes = utf8Bytes(JSON.stringify(raw));
  const parts: ExternalToolContent[] = [];
  for (const block of raw.content ?? []) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (
      block.type === 'image' &&
      API_IMAGE_TYPES.has(block.mimeType) &&
      block.data.length <= TOOL_RESULT_IMAGE_CAP_CHARS
    ) {
      parts.push({ type: 'image', data: block.data, mimeType: block.mimeType });
    } else if (block.type === 'image' || block.type === 'audio') {
      parts.push({
        type: 'text',
        text: `[${block.type} of type ${block.mimeType}, ${block.data.length} base64 characters, not shown]`,
      });
    } else if (block.type === 'resource') {
      const { uri, mimeType } = block.resource;
      const inline =
        'text' in block.resource && typeof block.resource.text === 'string'
          ? `:\n${block.resource.text}`
          : ' (binary, not shown)';
      parts.push({ type: 'text', text: `[resource ${uri}${mimeType === undefined ? '' : ` (${mimeType})`}]${inline}` });
    } else if (block.type === 'resource_link') {
      parts.push({
        type: 'text',
        text: `[resource link ${block.uri}${block.mimeType === undefined ? '' : ` (${block.mimeType})`}: ${block.name}]`,
      });
    }
  }
  // Structured content alone (no content blocks) is still an answer: passed on as its JSON.
  if (parts.length === 0 && raw.structuredContent !== undefined)
    parts.push({ type: 'text', text: JSON.stringify(raw.structuredContent) });
  if (parts.length === 0)
    parts.push({
      type: 'text',
      text: raw.isError === true ? 'The tool failed without saying why.' : '(the tool returned nothing)',
    });
  const capped = capText(parts, capBytes);
  return { result: { isError: raw.isError === true, content: capped }, text: storedText(capped), resultBytes };
}

/** A result for a call that could not be made (bad arguments, unknown tool, server down, timeout). */
export function errorOutput(message: string): ShapedToolOutput {
  return { result: { isError: true, content: [{ type: 'text', text: message }] }, text: message, resultBytes: 0 };
}

function capText(parts: readonly ExternalToolContent[], capBytes: number): ExternalToolContent[] {
  const total = parts.reduce((sum, part) => sum + (part.type === 'text' ? utf8Bytes(part.text) : 0), 0);
  if (total <= capBytes) return [...parts];
  let left = capBytes;
  const out: ExternalToolContent[] = [];
  for (const part of parts) {
    if (part.type !== 'text') {
      out.push(part);
      continue;
    }
    if (left <= 0) continue;
    const kept = cutUtf8(part.text, left);
    left -= utf8Bytes(kept);
    out.push({ type: 'text', text: kept });
  }
  out.push({
    type: 'text',
    text: `[truncated: the tool returned ${total} bytes of text; the last ${total - (capBytes - left)} bytes were cut]`,
  });
  return out;
}

/** The longest prefix of `text` within `bytes` UTF-8 bytes, never splitting a character. */
function cutUtf8(text: string, bytes: number): string {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= bytes) return text;
  let end = bytes;
  // Back off continuation bytes (10xxxxxx) so the cut falls on a character boundary.
  while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end -= 1;
  return buffer.subarray(0, end).toString('utf8');
}

function storedText(parts: readonly ExternalToolContent[]): string {
  return parts
    .map((part) =>
      part.type === 'text' ? part.text : `[image ${part.mimeType}, ${part.data.length} base64 characters]`,
    )
    .join('\n');
}
