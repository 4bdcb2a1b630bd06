/**
 * The instruction that ends the summarisation request. It asks for what a continuation needs most and loses
 * first: the user's own words, decisions with their reasons, the state of each file, errors and their fixes,
 * and what is still to do. `focus` (from `/compact focus…`) says what to keep above all.
 */
export function summaryPrompt(focus?: string): string {
  const lines = [
    "The conversation above is about to be compacted: it will be replaced by a summary that you write now, followed by the most recent exchanges kept verbatim. Write that summary. Do not call any tools; answer with text only.",
    "",
    "The summary is all that a continuation of this work will know of the conversation so far, so be precise and complete. Use these sections:",
    "",
    "1. User requests and intent: every request and instruction the user gave, quoted in their own words where possible (not paraphrased), and what they are trying to achieve. Include corrections and preferences the user stated.",
    "2. Decisions: what was decided, and why (alternatives rejected, constraints found).",
    "3. Files: each file read, created or changed, with its path and its current state (what was changed and whether the change is complete); include short code snippets where the exact text matters.",
    "4. Errors and fixes: each error met (commands, tests, tools) and how it was fixed, or that it is still open.",
    "5. Pending work: what remains to be done, in order, and the exact next step that was under way when the conversation was compacted.",
    "",
    "Wrap the summary in <summary></summary> tags.",
  ];
  const trimmed = focus?.trim();
  if (trimmed) lines.push("", `The user asks this summary to focus on: ${trimmed}`);
  return lines.join("\n");
}

/**
 * The text that opens the compacted history, in place of the messages it replaced. `latestRequest` is the
 * user's newest prompt when it was among them (kept in their exact words); `resume` asks the model to go on
 * with its work when no user message follows.
 */
export function summaryMessage(summary: string, latestRequest: string | undefined, resume: boolean): string {
  const parts = [
    "This session continues an earlier conversation that was compacted to fit the context window. The summary below covers the earlier part; the messages after it are the most recent exchanges, unchanged.",
    "",
    `<summary>\n${summary}\n</summary>`,
  ];
  if (latestRequest)
    parts.push("", `The user's latest request, in their own words:\n<request>\n${latestRequest}\n</request>`);
  if (resume)
    parts.push("", "Continue the work from where it stopped, without asking the user to repeat anything.");
  return parts.join("\n");
}

/** The summary without its `<summary>` tags (and without any analysis before them); the whole text if untagged. */
export function extractSummary(text: string): string {
  const match = /<summary>([\s\S]*?)<\/summary>/.exec(text);
  return (match ? match[1] : text)!.trim();
}
