import type { HookRunner } from "../hooks/index.js";
import {
  checkElicitationAnswer,
  type ElicitationForm,
  readElicitationForm,
} from "../mcp/elicitation-form.js";
import type { McpElicit, McpElicitationAnswer, McpElicitationRequest } from "../mcp/index.js";
import type { Questions } from "./asker.js";

/** How many times the user is asked before content that does not fit the form counts as a decline. */
const ATTEMPTS = 3;

/**
 * Who answers the servers' elicitations: the embedder's own handler when there is one, else the `elicitation`
 * question of the Asker seam (the terminal's dialog, the SDK's control request, the editor's). Either way the form
 * is read first (a schema MCP does not allow, 10,000 fields, a nested object: declined without asking, with a
 * warning) and the answer is checked against it before it is sent: from the seam, content that does not fit is
 * refused (the front-end is told why) and asked again, then declined; from an embedder's handler, declined.
 * With nobody to ask (print mode), each is declined with a one-line warning naming the server.
 *
 * Claude Code's hooks come around it: an `Elicitation` hook may answer in the user's place (nobody is asked; in
 * print mode too), an `ElicitationResult` hook may change the answer before it is sent — both checked as well.
 */
export function askElicitation(
  questions: Questions,
  embedder: McpElicit | undefined,
  warn: (message: string) => void,
  hooks: () => HookRunner | undefined = () => undefined,
): McpElicit {
  const seam = questions.asFunction("elicitation", (request: McpElicitationRequest) => ({
    kind: "elicitation",
    request,
  }));
  return async (request) => {
    const form = readElicitationForm(request.message, request.schema);
    if ("error" in form) {
      warn(
        `MCP server ${JSON.stringify(oneLine(request.server))} asked for input that cannot be asked (${form.error}); declined.`,
      );
      return { action: "decline" };
    }
    const runner = hooks();
    const answer = await answerOf(request, form.ok, runner, { questions, embedder, seam, warn });
    if (!runner?.has("ElicitationResult", request.server)) return answer;
    const after = await runner.run(
      "ElicitationResult",
      {
        mcp_server_name: request.server,
        mode: "form",
        action: answer.action,
        ...(answer.content ? { content: answer.content } : {}),
      },
      request.signal ? { signal: request.signal } : {},
    );
    return after.elicitation
      ? checkedOrDeclined("A hook's answer", after.elicitation, form.ok, request, warn)
      : answer;
  };
}

/** The `Elicitation` hooks' answer, else the embedder's, else the seam's; nobody to ask declines. */
async function answerOf(
  request: McpElicitationRequest,
  form: ElicitationForm,
  runner: HookRunner | undefined,
  by: {
    questions: Questions;
    embedder: McpElicit | undefined;
    seam: ((request: McpElicitationRequest) => Promise<McpElicitationAnswer>) | undefined;
    warn: (message: string) => void;
  },
): Promise<McpElicitationAnswer> {
  if (runner?.has("Elicitation", request.server)) {
    const before = await runner.run(
      "Elicitation",
      {
        mcp_server_name: request.server,
        message: request.message,
        mode: "form",
        requested_schema: request.schema,
      },
      request.signal ? { signal: request.signal } : {},
    );
    if (before.elicitation)
      return checkedOrDeclined("A hook's answer", before.elicitation, form, request, by.warn);
  }
  if (by.embedder) return once(by.embedder, request, form, by.warn);
  if (by.seam) return repeatedly(by.seam, request, form, by.questions);
  by.warn(
    `MCP server ${JSON.stringify(oneLine(request.server))} asked for input; declined: nobody can answer here (print mode).`,
  );
  return { action: "decline" };
}

/** `answer` as checked against the form; one that does not fit is declined, with a warning naming `whose`. */
function checkedOrDeclined(
  whose: string,
  answer: unknown,
  form: ElicitationForm,
  request: McpElicitationRequest,
  warn: (message: string) => void,
): McpElicitationAnswer {
  const checked = checkElicitationAnswer(form, answer);
  if ("ok" in checked) return checked.ok;
  warn(
    `${whose} to MCP server ${JSON.stringify(oneLine(request.server))} was not sent (${checked.error}); declined.`,
  );
  return { action: "decline" };
}

async function once(
  elicit: McpElicit,
  request: McpElicitationRequest,
  form: ElicitationForm,
  warn: (message: string) => void,
): Promise<McpElicitationAnswer> {
  let answer: unknown;
  try {
    answer = await elicit(request);
  } catch {
    return { action: "decline" };
  }
  return checkedOrDeclined("The answer", answer, form, request, warn);
}

async function repeatedly(
  ask: (request: McpElicitationRequest) => Promise<McpElicitationAnswer>,
  request: McpElicitationRequest,
  form: ElicitationForm,
  questions: Questions,
): Promise<McpElicitationAnswer> {
  let error: string | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const answer = await ask(error === undefined ? request : { ...request, error });
    if (request.signal?.aborted) return { action: "cancel" };
    const checked = checkElicitationAnswer(form, answer);
    if ("ok" in checked) return checked.ok;
    error = checked.error;
    questions.notify(`The answer to MCP server ${oneLine(request.server)} was refused: ${error}`);
  }
  return { action: "decline" };
}

function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?").slice(0, 100);
}
