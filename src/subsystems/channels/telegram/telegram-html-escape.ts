/**
 * The escaping rules of Telegram's HTML parse mode: it knows only the entities &lt; &gt; &amp; &quot;, and refuses a
 * message whose `<` does not start a supported tag.
 */

const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const TEXT_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"' };

/** `text` escaped for the body of a Telegram HTML message. */
export function escapeHtmlText(text: string): string {
  return text.replace(/[&<>]/g, (char) => TEXT_ESCAPES[char]!);
}

/** `value` escaped for a double-quoted attribute value. */
export function escapeHtmlAttribute(value: string): string {
  return value.replace(/[&<>"]/g, (char) => TEXT_ESCAPES[char]!);
}

/** What Telegram shows of `html` this module's functions built: tags dropped, entities read back. */
export function visibleTextOf(html: string): string {
  // Attribute values escape `>`, so a tag never holds one and `<[^>]*>` matches each tag whole.
  return html.replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|quot);/g, (_entity, name: string) => ENTITIES[name]!);
}

/** `text` with each lone surrogate replaced by U+FFFD, as long as before: the Bot API refuses text that is not UTF-8. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATES, '\uFFFD');
}
