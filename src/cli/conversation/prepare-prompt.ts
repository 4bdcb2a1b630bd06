import type { CodingAgent, ModelChoice } from "../../harness/index.js";
import type { ContentBlock } from "../../messages/index.js";
import {
  activateSkill,
  type Command,
  expandInline,
  expandInvocation,
  type Skill,
} from "../../skills/index.js";
import { promptContent } from "./prompt-content.js";

/** A prompt ready for `runPrompt`, or why it cannot be sent. */
export type PreparedPrompt = { prompt: string | ContentBlock[]; model?: ModelChoice } | { error: string };

/**
 * What a typed prompt sends: a slash command or skill (`target`) expanded, its `!`command`` run and `@file`
 * inlined under the permission rules, with its `model` if it names one; or the user's text with its `@file`
 * references and pasted image paths attached.
 */
export async function preparePrompt(
  agent: CodingAgent,
  text: string,
  target: { target: Skill | Command; args: string } | undefined,
  options: { cwd: string; signal?: AbortSignal | undefined; confine?: boolean },
): Promise<PreparedPrompt> {
  if (!target) {
    const built = await promptContent(text, {
      cwd: options.cwd,
      images: agent.images,
      model: agent.model,
      ...(options.confine ? { confine: agent.readable } : {}),
    });
    if ("error" in built) return built;
    const [only] = built.content;
    return { prompt: built.content.length === 1 && only?.type === "text" ? only.text : built.content };
  }
  let model: ModelChoice | undefined;
  try {
    model = agent.modelFor(target.target.model);
  } catch (error) {
    return {
      error: `/${target.target.name}: its model ${JSON.stringify(target.target.model)} cannot be used: ${(error as Error).message}`,
    };
  }
  // Active first: the skill's `allowed-tools` then cover its own `!`commands``.
  activateSkill(agent.toolState, target.target);
  const expanded = expandInvocation(target.target, target.args);
  const signal = options.signal ?? new AbortController().signal;
  const prompt = await expandInline(expanded, agent.inline({ signal, state: agent.toolState }));
  return model ? { prompt, model } : { prompt };
}
