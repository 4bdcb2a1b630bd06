/**
 * A sent prompt as the user typed it, for lists and recaps: without the files `@path` attached (the
 * `<file path="…">` blocks after the words), the `!command` outputs sent with it, and, for the message a
 * compaction wrote, "(summary of the earlier conversation)" with the user's latest request when it names one.
 */
export function typedPrompt(text: string): string {
  const request = /<request>\n?([\s\S]*?)\n?<\/request>/.exec(text);
  if (text.includes("<summary>")) {
    return request?.[1]
      ? `(summary of the earlier conversation) ${request[1].trim()}`
      : "(summary of the earlier conversation)";
  }
  return text
    .replace(/\n*<file path="[^"]*">\n[\s\S]*?\n<\/file>/g, "")
    .replace(/<bash-input>[\s\S]*?<\/bash-stderr>\n*/g, "")
    .trim();
}
