/**
 * Text that came from a server or a description, safe to print: control characters (a terminal's escape
 * sequences among them) are shown as escapes, never sent to the terminal.
 */
export function printable(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point.
    /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
