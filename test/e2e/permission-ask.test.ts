import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PermissionAnswer, PermissionRequest } from "../../src/permissions/index.js";
import { call, calls, E2eHarness } from "./e2e-harness.js";

// The `ask` callback (what the terminal will answer) through the loop: allow once, allow always, deny.
let h: E2eHarness;
beforeEach(async () => {
  h = await E2eHarness.start();
});
afterEach(() => h.close());

/** An `ask` that answers from a list, in order, and records what it was asked. */
function answering(...answers: PermissionAnswer[]) {
  const asked: PermissionRequest[] = [];
  const ask = async (request: PermissionRequest): Promise<PermissionAnswer> => {
    asked.push(request);
    const answer = answers.shift();
    if (!answer) throw new Error(`asked once too often: ${request.display}`);
    return answer;
  };
  return { asked, ask };
}

const twoTouches = [
  calls(call("one", "Bash", { command: "touch one" })),
  calls(call("two", "Bash", { command: "touch two" })),
];

describe("the ask callback through the loop", () => {
  it("allow_once runs the call, and the next call is asked again", async () => {
    const { asked, ask } = answering("allow_once", "allow_once");
    await h.run(twoTouches, { canUseTool: await h.checker({ ask }) });
    expect(asked).toEqual([
      {
        toolName: "Bash",
        input: { command: "touch one" },
        toolUseId: "toolu_one",
        display: "Bash(touch one)",
        suggestedRules: ["Bash(touch:*)"],
        reason: "no rule allows it",
        facts: { command: "touch one" },
        signal: expect.any(AbortSignal),
      },
      expect.objectContaining({ display: "Bash(touch two)", toolUseId: "toolu_two" }),
    ]);
    expect(h.exists("one")).toBe(true);
    expect(h.exists("two")).toBe(true);
    expect(h.sentText("two")).toBe("(no output)\n\n[Exit code: 0]");
  });

  it("allow_always runs the call and allows its kind for the rest of the session without asking", async () => {
    const { asked, ask } = answering("allow_always");
    await h.run(twoTouches, { canUseTool: await h.checker({ ask }) });
    expect(asked.map((request) => request.display)).toEqual(["Bash(touch one)"]);
    expect(h.exists("one")).toBe(true);
    expect(h.exists("two")).toBe(true);
    expect(h.sent("two").is_error).toBeUndefined();
  });

  it("deny sends the refusal to the model, and the call has no effect", async () => {
    const { asked, ask } = answering("deny");
    await h.put(".mitsu/settings.json", JSON.stringify({ permissions: { ask: ["Edit(./**)"] } }));
    await h.run([calls(call("write", "Write", { file_path: "nope.txt", content: "x" }))], {
      canUseTool: await h.checker({ ask }),
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.reason).toBe(
      `the rule "Edit(./**)" in permissions.ask of ${h.path(".mitsu/settings.json")} requires asking`,
    );
    expect(h.sent("write")).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_write",
      content:
        "The user denied permission to use Write(nope.txt). Do not retry it as it is; ask the user what to do instead if it is unclear.",
      is_error: true,
    });
    expect(h.exists("nope.txt")).toBe(false);
  });
});

describe("deny_and_stop: the user refuses and will say what to do instead", () => {
  it("the call gets Claude Code's refusal, the turn stops with no further request, and the transcript stays valid", async () => {
    const { asked, ask } = answering("deny_and_stop");
    const outcome = await h.run(
      [
        calls(
          call("edit", "Bash", { command: "touch nope.txt" }),
          call("more", "Write", { file_path: "more", content: "x" }),
        ),
      ],
      { canUseTool: await h.checker({ ask }) },
    );
    expect(asked.map((request) => request.display)).toEqual(["Bash(touch nope.txt)"]);
    expect(outcome.result.reason).toBe("denied");
    // One request: the one that asked for the calls. The results are in the transcript for the next prompt.
    expect(h.sim.requests).toHaveLength(1);
    const sent = outcome.result.messages.at(-1)?.content ?? [];
    expect(sent).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_edit",
        content:
          "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
        is_error: true,
      },
      {
        type: "tool_result",
        tool_use_id: "toolu_more",
        content:
          "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.",
        is_error: true,
      },
    ]);
    expect(h.exists("nope.txt")).toBe(false);
    expect(h.exists("more")).toBe(false);
  });

  it("the question carries what the tool states and a signal that is live while it is asked", async () => {
    const { asked, ask } = answering("allow_once");
    await h.run([calls(call("one", "Bash", { command: "touch one" }))], {
      canUseTool: await h.checker({ ask }),
    });
    expect(asked[0]?.facts).toEqual({ command: "touch one" });
    expect(asked[0]?.signal).toBeInstanceOf(AbortSignal);
  });
});

describe("a call that cannot succeed is not put to the user", () => {
  it("an Edit of a file never Read, or whose old_string does not match, fails without asking", async () => {
    const { asked, ask } = answering();
    await h.put("notes.txt", "alpha\n");
    await h.run(
      [
        calls(call("unread", "Edit", { file_path: "notes.txt", old_string: "alpha", new_string: "beta" })),
        calls(call("read", "Read", { file_path: "notes.txt" })),
        calls(call("nomatch", "Edit", { file_path: "notes.txt", old_string: "gamma", new_string: "beta" })),
        calls(call("outside", "Write", { file_path: "../elsewhere.txt", content: "x" })),
      ],
      { canUseTool: await h.checker({ ask }) },
    );
    expect(asked).toEqual([]);
    expect(h.sentText("unread")).toContain("has not been Read in this session");
    expect(h.sentText("nomatch")).toContain("old_string was not found");
    expect(h.sentText("outside")).toContain("outside the workspace");
    expect(await h.text("notes.txt")).toBe("alpha\n");
  });
});
