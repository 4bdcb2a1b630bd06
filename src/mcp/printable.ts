/**
 * Text from a configuration file or a server, made safe to print at a terminal: control characters (escape
 * sequences could rewrite the screen, or hide what an approval question shows) become `?`; newlines and tabs stay.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "?");
}
