import { homedir } from "node:os";
import { resolve } from "node:path";
import { FolderSet } from "../fs/folder-set.js";
import { absolutePath, isInside, resolveRealPath } from "../fs/real-path.js";
import { type CanUseTool, type PermissionDecision, USER_REJECTED_MESSAGE } from "../loop/permission.js";
import type { PermissionFacts, Tool } from "../loop/tool.js";
import type { ToolState } from "../loop/tool-state.js";
import { applyPermissionUpdates } from "./apply-permission-updates.js";
import { describeToolCall, suggestFileRule } from "./describe-tool-call.js";
import { globRelativeTo } from "./exclude-globs.js";
import { setsGitConfig } from "./git-config-write.js";
import type { LoadedRules } from "./load-settings.js";
import {
  type BashAnalysis,
  parseBashCommand,
  withoutAssignments,
  XARGS_INPUT,
} from "./parse-bash-command.js";
import type { PermissionMode } from "./permission-mode.js";
import {
  fileRuleMatches,
  type PermissionRule,
  parsePermissionRule,
  type RuleOrigin,
  ruleAppliesToTool,
  urlRuleMatches,
} from "./permission-rule.js";
import type { PermissionUpdate } from "./permission-update.js";
import { protectedPathReason } from "./protected-path.js";
import { writesThroughNoArgument } from "./read-only-command.js";
import { cdFolders, readsOnlyInWorkspace } from "./read-only-in-workspace.js";
import { suggestBashRules } from "./suggest-bash-rules.js";
import { copiedInto, holdsProtected, linkedTo, treeDestinations } from "./tree-writes.js";

/** What the terminal is asked when a call needs the user's decision. */
export interface PermissionRequest {
  toolName: string;
  input: Record<string, unknown>;
  toolUseId: string;
  /** The call in rule-like form, e.g. `Bash(rm -rf build)`. */
  display: string;
  /** Rules that "allow always" adds for this session (e.g. `["Bash(rm:*)"]`); the terminal may offer to save them. */
  suggestedRules: string[];
  /** Why the user is asked: no rule allows it, or an `ask` rule (named) requires it. */
  reason: string;
  /** Set when a sub-agent makes the call: its `agentPath` (the Task call that started it comes first). */
  agentPath?: readonly string[];
  /** The sub-agent that asks, in words (`Explore: find the auth code`); absent for the main agent. */
  agent?: string;
  /** What the tool states about the call (its paths, command, URL): a question may show it. */
  facts?: PermissionFacts;
  /**
   * Aborted when the question is no longer needed: the run was interrupted, or the user stopped the turn by
   * refusing another call of it. A terminal takes the question off the screen; the answer is then ignored.
   */
  signal?: AbortSignal;
}

/**
 * `deny` refuses the call and the model goes on with the refusal as the result; `deny_and_stop` refuses it and
 * stops the turn — the user will say what to do instead (the terminal's "3. No, and tell mitsu what to do").
 */
export type PermissionAnswer = "allow_once" | "allow_always" | "deny" | "deny_and_stop";

/**
 * An answer with its details, as a program gives it (the Claude Agent SDK's `canUseTool` result): allow with
 * another input (checked against the tool's schema again) and rules to allow from now on (for the session);
 * or deny with the message the model reads, and `interrupt` to stop the turn as `deny_and_stop` does.
 */
export type PermissionVerdict =
  | {
      behavior: "allow";
      updatedInput?: Record<string, unknown>;
      rules?: string[];
      /** Claude Code's `updatedPermissions`: applied (and saved to their settings files) before the call runs. */
      updates?: PermissionUpdate[];
    }
  | { behavior: "deny"; message?: string; interrupt?: boolean };

/** Rule lists given to the checker: parsed rules (from `loadSettings`) or rule strings. */
export interface RuleLists {
  allow?: ReadonlyArray<PermissionRule | string>;
  ask?: ReadonlyArray<PermissionRule | string>;
  deny?: ReadonlyArray<PermissionRule | string>;
}

export interface PermissionCheckerOptions {
  /** Settings rules (`loadSettings(...).rules`), or lists of rule strings; absent: none. */
  rules?: LoadedRules | RuleLists;
  mode: PermissionMode;
  /** `--allowedTools`: rules that allow. */
  allowedTools?: string[];
  /** `--disallowedTools`: rules that deny. */
  disallowedTools?: string[];
  /** The working folder: the root of CLI and session rules, and of the workspace (with additionalDirectories). */
  cwd: string;
  /** More workspace folders (`--add-dir`, `permissions.additionalDirectories`), where acceptEdits allows edits. */
  additionalDirectories?: string[];
  /**
   * The workspace folders besides `cwd` as a live value, shared with the file tools (the harness's); then
   * `additionalDirectories` is not read. Updates' `addDirectories` and `removeDirectories` change it.
   */
  folders?: FolderSet;
  /**
   * Folders that belong to the model (its memory folder): Write and Edit inside them are allowed in every mode
   * but plan, unless a deny or ask rule says otherwise.
   */
  ownFolders?: string[];
  /** The folder `~/` refers to in CLI and session rules. Default `os.homedir()`. */
  home?: string;
  /** Asks the user. Absent in print mode: a call that would be asked is denied, with a message on how to allow it. */
  ask?: (request: PermissionRequest) => Promise<PermissionAnswer | PermissionVerdict>;
  /**
   * Rules pre-approved for the run at hand, read from its state on each call (an active skill's
   * `allowed-tools`). They allow like allow rules; deny and ask rules still win.
   */
  preApproved?: (state: ToolState) => readonly string[];
  /**
   * Bash runs inside the sandbox and the user lets sandboxed commands run without asking
   * (`autoAllowBashIfSandboxed`): a Bash call no rule allows is allowed, unless a deny or ask rule matches, plan
   * mode forbids it, the Bash parse cannot account for part of the line, or it names `.git`, `.mitsu` or `.claude`.
   */
  sandboxAutoAllow?: boolean;
  /** A permission update that could not be applied or saved (a malformed rule, a settings file not writable). */
  onWarning?: (message: string) => void;
}

export interface PermissionChecker extends CanUseTool {
  /** Adds a session allow rule (as "allow always" does) and returns it as written; throws on a malformed rule. */
  allowAlways(rule: string): string;
  /** Switches the permission mode (e.g. when the user cycles modes in the terminal). */
  setMode(mode: PermissionMode): void;
  /**
   * Applies Claude Code's permission updates now, and saves those whose destination is a settings file; what cannot
   * be applied or saved goes to `onWarning`.
   */
  applyUpdates(updates: readonly PermissionUpdate[]): Promise<void>;
  /** The permission mode now (the one it started in, or the last `setMode`). */
  currentMode(): PermissionMode;
  /**
   * The files that Read deny and ask rules cover, as gitignore-style globs relative to `root` (a folder a
   * search runs from; anchored ones start with `/`). Grep and Glob exclude them, so that searching a parent
   * folder does not read or list what a rule denies.
   */
  readExcludes(root: string): Promise<string[]>;
  /**
   * Why the call is refused whatever anyone answers — a deny rule matches, or plan mode forbids a tool that
   * writes — or undefined. A PreToolUse hook that asks the user consults this first: the user's yes to a hook's
   * question never lifts a deny rule.
   */
  denial(tool: Tool<never>, input: Record<string, unknown>): Promise<string | undefined>;
  /**
   * Why the call may not run without anyone being asked — `denial`'s reasons, an ask rule, or no rule allowing it
   * — or undefined when it runs unasked. For a caller that asks no one (an agent hook's judge).
   */
  unaskedRefusal(tool: Tool<never>, input: Record<string, unknown>): Promise<string | undefined>;
}

/**
 * Allowed unless a rule says otherwise: they read, only load instructions into the conversation (Skill), start a
 * sub-agent whose own calls are each decided by this checker (Task; SendMessage continues one; TaskOutput and TaskStop
 * read and stop one), keep the model's plan (TodoWrite), or read
 * and stop what the model itself started in the background. The MCP resource tools read what servers the user
 * started offer (each server's own tools still ask).
 */
const ALLOWED_BY_DEFAULT = new Set([
  "Read",
  "Grep",
  "Glob",
  "Skill",
  "Task",
  "TaskOutput",
  "TaskStop",
  "SendMessage",
  "TodoWrite",
  "BashOutput",
  "KillShell",
  "ListMcpResources",
  "ToolSearch",
  "ReadMcpResource",
]);
/**
 * Paths a sandboxed command cannot write where they exist (and must not create where they do not): a command that
 * names them, or that could name them with a glob after a dot (`.gi?`, `.m*`), is asked about, sandbox or not.
 */
const PROTECTED_NAMES = /(^|[^\w.-])\.(git|mitsu|claude)(?=$|[^\w.-])|\.[\w-]*[*?[]/i;

const MCP_JSON = /(^|[^\w.-])\.mcp\.json(?=$|[^\w.-])/i;
const NAMES_PROTECTED =
  "the line names .git, .mitsu, .claude or .mcp.json, whose files change what runs later, and an allow rule for the command does not cover that";

/**
 * Whether a Bash line names `.git`, `.mitsu`, `.claude` (or a dot-name glob) as written, with its quotes and
 * backslashes taken out (`.mit''su`, `.mi\tsu`), or in any word as bash will see it (`$'\x2emitsu'`). The sandbox
 * masks these names only at the top of each workspace folder, so a sandboxed line that names one is asked.
 */
function mentionsProtectedName(command: string, bash: BashAnalysis): boolean {
  if (PROTECTED_NAMES.test(command) || PROTECTED_NAMES.test(command.replace(/['"\\]/g, ""))) return true;
  return bash.commands.some((c) =>
    [c.words, ...c.inner].some((words) => words.some((word) => PROTECTED_NAMES.test(word))),
  );
}

type Verdict =
  | { behavior: "allow" }
  | { behavior: "deny"; message: string }
  | {
      behavior: "ask";
      askRule?: PermissionRule;
      /** What the Bash parse could not account for, when that is why no rule could allow the line. */
      unaccounted?: string[];
      protectedReason?: string;
    };

/** Facts about one call that rules are matched against, from the tool's `permissionFacts`. */
interface CallFacts {
  toolName: string;
  /** Absolute candidates for the paths the call touches: each as written, and with links resolved. */
  paths: string[];
  /** Each stated path with links resolved, in order (where an edit really lands). */
  realPaths: string[];
  /** "write" when the call writes any of its paths, "read" when it only reads them; absent without paths. */
  access?: "read" | "write";
  /** A stated path is a folder searched below (Grep, Glob). */
  searchesFolder: boolean;
  /** The command line the call runs, as stated. */
  command?: string;
  bash?: BashAnalysis;
  /** For Bash: the files its redirections write, each as a Write call's facts. */
  writes?: CallFacts[];
  /** For Bash: the files its input redirections read, each as a Read call's facts (for deny and ask rules). */
  reads?: CallFacts[];
  url?: unknown;
}

/** What the tool states about a call; a tool that states nothing (or fails to) is matched by its name only. */
function statedFacts(tool: Tool<never>, input: Record<string, unknown>): PermissionFacts {
  if (!tool.permissionFacts) return {};
  try {
    return (
      (tool.permissionFacts as (input: Record<string, unknown>) => PermissionFacts).call(tool, input) ?? {}
    );
  } catch {
    return {};
  }
}

/**
 * Decides each tool call: an explicit deny rule (settings or `--disallowedTools`) always denies; plan mode
 * then denies every tool that is not read-only; bypassPermissions allows the rest; an `ask` rule asks;
 * an allow rule (settings, `--allowedTools`, or "allow always" in this session) allows; acceptEdits allows
 * Write and Edit inside the workspace; otherwise Read, Grep, Glob, Skill and Task are allowed and everything
 * else (Write, Edit, Bash, MCP tools, …) is asked. A Bash allow holds only when every simple command
 * of the line is allowed, the parse accounts for all of it, and every file its redirections write may be
 * written; one denied command denies the line. Writes to `.git/`, `.mitsu/`, `.claude/`, `.mcp.json` and the
 * shell's start-up files are asked in every mode but bypassPermissions. Asking without an `ask` callback denies.
 */
export function createPermissionChecker(options: PermissionCheckerOptions): PermissionChecker {
  const state = checkerState(options);
  const { home, cwd, deny, ask, allowRules, realBase } = state;
  const { gatherFacts } = factFinder(state);
  const matcher = ruleMatcher(state);
  const { partlyAllowed, suggestions } = matcher;
  const { decide, preApproved, refusal } = decider(state, matcher, options);

  const checker = (async (tool, input, context): Promise<PermissionDecision> => {
    const stated = statedFacts(tool, input);
    const facts = await gatherFacts(tool, stated);
    const display = describeToolCall(tool.name, stated);
    const verdict = await decide(
      tool,
      facts,
      display,
      preApproved(context.state),
      context.hookAllowed === true,
    );
    if (verdict.behavior !== "ask") return verdict;
    const suggestedRules = verdict.protectedReason ? [] : await suggestions(facts);
    const reason = verdict.askRule
      ? `the rule ${JSON.stringify(verdict.askRule.text)} ${whereRule(verdict.askRule, "ask")} requires asking`
      : verdict.protectedReason
        ? `writes here are always asked: ${verdict.protectedReason}`
        : (partlyAllowed(facts) ?? "no rule allows it");
    if (!options.ask) {
      return { behavior: "deny", message: printModeDenial(display, suggestedRules, verdict) };
    }
    if (context.signal.aborted)
      return { behavior: "deny", message: "The run was aborted before permission was given." };
    const answer = await options.ask({
      toolName: tool.name,
      input,
      toolUseId: context.toolUseId,
      display,
      suggestedRules,
      reason,
      ...(context.agentPath && context.agentPath.length > 0 ? { agentPath: context.agentPath } : {}),
      ...(context.agent !== undefined ? { agent: context.agent } : {}),
      facts: stated,
      signal: context.signal,
    });
    if (typeof answer === "object") {
      // The answer's rewrite is a new call: the deny rules (and plan mode) refuse it whoever allowed it.
      if (answer.behavior === "allow" && answer.updatedInput) {
        const refused = await checker.denial(tool, answer.updatedInput);
        if (refused !== undefined)
          return { behavior: "deny", message: `The input given with the approval was refused: ${refused}` };
      }
      return await verdictDecision(answer, display, checker);
    }
    if (answer === "deny_and_stop") {
      return { behavior: "deny", message: USER_REJECTED_MESSAGE, interrupt: true };
    }
    if (answer === "deny") {
      return {
        behavior: "deny",
        message: `The user denied permission to use ${display}. Do not retry it as it is; ask the user what to do instead if it is unclear.`,
      };
    }
    if (answer === "allow_always") for (const rule of suggestedRules) checker.allowAlways(rule);
    else if (answer !== "allow_once") {
      // Not an answer the contract knows (an embedder's bug): refusing is the safe reading.
      return { behavior: "deny", message: `The user did not allow ${display}.` };
    }
    return { behavior: "allow" };
  }) as PermissionChecker;

  checker.allowAlways = (text: string) => {
    const rule = parsePermissionRule(
      text,
      { source: "session", root: cwd, home },
      "allowed for this session",
    );
    allowRules.push(rule);
    return rule.text;
  };
  checker.denial = async (tool, input) => {
    const stated = statedFacts(tool, input);
    return refusal(tool, await gatherFacts(tool, stated), describeToolCall(tool.name, stated));
  };
  checker.unaskedRefusal = async (tool, input) => {
    const stated = statedFacts(tool, input);
    const display = describeToolCall(tool.name, stated);
    const verdict = await decide(tool, await gatherFacts(tool, stated), display, []);
    if (verdict.behavior === "allow") return undefined;
    if (verdict.behavior === "deny") return verdict.message;
    return verdict.askRule
      ? `the rule ${JSON.stringify(verdict.askRule.text)} ${whereRule(verdict.askRule, "ask")} requires asking, and no one is asked here`
      : `${display} would be asked about, and no one is asked here`;
  };
  checker.setMode = (next: PermissionMode) => {
    state.mode = next;
  };
  checker.currentMode = () => state.mode;
  checker.applyUpdates = (updates) =>
    applyPermissionUpdates(
      updates,
      { ...state, setMode: (mode) => checker.setMode(mode) },
      options.onWarning,
    );
  checker.readExcludes = async (root: string) => {
    const globs = new Set<string>();
    for (const rule of [...deny, ...ask]) {
      if (!rule.files || !ruleAppliesToTool(rule, "Read")) continue;
      for (const base of new Set([rule.files.base, await realBase(rule.files.base)])) {
        const glob = globRelativeTo(base, rule.files.pattern, root);
        if (glob !== undefined) globs.add(glob);
      }
    }
    return [...globs];
  };
  return checker;
}

/** The checker's rules and folders; `mode` changes with `setMode`. */
interface CheckerState {
  home: string;
  cwd: string;
  mode: PermissionMode;
  deny: PermissionRule[];
  ask: PermissionRule[];
  allowRules: PermissionRule[];
  /** The working folder and the live additional folders, read at each call. */
  workspaceRoots: () => string[];
  folders: FolderSet;
  ownFolders: string[];
  realBase: (base: string) => Promise<string>;
}

function checkerState(options: PermissionCheckerOptions): CheckerState {
  const home = options.home ?? homedir();
  const cwd = resolve(options.cwd);
  const cli = (flag: string): RuleOrigin => ({ source: flag, root: cwd, home });
  const given = ruleLists(options.rules, { source: "options.rules", root: cwd, home });
  const deny = [
    ...given.deny,
    ...(options.disallowedTools ?? []).map((text, i) =>
      parsePermissionRule(text, cli("--disallowedTools"), `--disallowedTools[${i}]`),
    ),
  ];
  const ask = [...given.ask];
  const allowRules = [
    ...given.allow,
    ...(options.allowedTools ?? []).map((text, i) =>
      parsePermissionRule(text, cli("--allowedTools"), `--allowedTools[${i}]`),
    ),
  ];
  let folders = options.folders;
  if (!folders) {
    folders = new FolderSet(cwd, home);
    for (const dir of options.additionalDirectories ?? []) folders.adopt(dir);
  }
  const live = folders;
  const workspaceRoots = () => [cwd, ...live.list()];
  const ownFolders = (options.ownFolders ?? []).map((dir) => resolve(cwd, dir));
  const realBases = new Map<string, Promise<string>>();
  const realBase = (base: string) => {
    let real = realBases.get(base);
    if (!real) {
      real = resolveRealPath(base).catch(() => base);
      realBases.set(base, real);
    }
    return real;
  };

  return {
    home,
    cwd,
    mode: options.mode,
    deny,
    ask,
    allowRules,
    workspaceRoots,
    folders,
    ownFolders,
    realBase,
  };
}

/** What a call touches: its paths as written and with links resolved, its Bash command parsed. */
function factFinder(state: CheckerState) {
  const { home, cwd } = state;
  async function gatherFacts(tool: Tool<never>, stated: PermissionFacts): Promise<CallFacts> {
    const facts: CallFacts = { toolName: tool.name, paths: [], realPaths: [], searchesFolder: false };
    if (typeof stated.command === "string") {
      facts.command = stated.command;
      facts.bash = parseBashCommand(stated.command);
      // A redirection's file, as the facts of a Write (or, for `<`, a Read) of it.
      // After `cd sub`, a relative `> out` lands in sub: each folder the line may be in is a candidate.
      const bases = cdFolders(facts.bash.cds, cwd, home);
      const fileFacts = (access: "read" | "write", targets: string[]) =>
        Promise.all(
          targets.map(async (target): Promise<CallFacts> => {
            const facts: CallFacts = {
              toolName: access === "write" ? "Write" : "Read",
              paths: [],
              realPaths: [],
              access,
              searchesFolder: false,
            };
            for (const base of bases) {
              const paths = await pathCandidates(target, base);
              facts.paths.push(...paths.filter((path) => !facts.paths.includes(path)));
              facts.realPaths.push(paths[paths.length - 1]!);
            }
            return facts;
          }),
        );
      facts.writes = await fileFacts("write", facts.bash.writes);
      facts.reads = await fileFacts("read", facts.bash.reads);
    }
    if (stated.url !== undefined) facts.url = stated.url;
    for (const { path: raw, access, folder } of stated.paths ?? []) {
      if (typeof raw !== "string") continue;
      const candidates = await pathCandidates(raw);
      facts.paths.push(...candidates);
      facts.realPaths.push(candidates[candidates.length - 1]!);
      if (folder === true) facts.searchesFolder = true;
      facts.access = access === "write" || facts.access === "write" ? "write" : "read";
    }
    return facts;
  }

  /** A path as written (absolute) and with links resolved, when that differs. */
  async function pathCandidates(raw: string, base = cwd): Promise<string[]> {
    const expanded = absolutePath(raw, base, home);
    const real = await resolveRealPath(expanded).catch(() => expanded);
    return real === expanded ? [expanded] : [expanded, real];
  }

  return { gatherFacts, pathCandidates };
}

/** The check of what a Bash line's arguments may name, for lines that rules would allow. */
function nameGuard(state: CheckerState, pathCandidates: (raw: string, base?: string) => Promise<string[]>) {
  const { home, cwd, allowRules, ownFolders, realBase } = state;
  /**
   * Why a Bash line that rules would allow must still be asked because of what its commands' arguments may name:
   * a word known only when it runs (`$d/hooks`, `$(printf …)`, `.gi?`) may build a protected name, and a literal
   * one (`~/.bashrc`, `hooks/x` after `cd .git`) may be one. Commands that write through no argument (`echo
   * "$x"`, `cat $f`) are left out; their redirections are checked as writes.
   */
  async function namesProtected(
    bash: BashAnalysis,
    command: string,
    extra: readonly PermissionRule[] = [],
  ): Promise<string | undefined> {
    if (mentionsProtectedName(command, bash) || MCP_JSON.test(command)) return NAMES_PROTECTED;
    const folders = cdFolders(bash.cds, cwd, home);
    const own = await Promise.all(ownFolders.map(realBase));
    /** The first of `paths` (from any folder the line may be in, links resolved) for which `test` holds. */
    const first = async (paths: string[], test: (candidate: string) => boolean | Promise<boolean>) => {
      for (const path of paths)
        for (const folder of folders)
          for (const candidate of await pathCandidates(path, folder))
            if (!own.some((root) => isInside(root, candidate)) && (await test(candidate)))
              return { path, candidate };
      return undefined;
    };
    for (const { words, inner, unresolved, paths } of bash.commands) {
      if (writesThroughNoArgument(words)) continue;
      // `… | xargs wc -l`: what xargs reads only feeds a command that writes through no argument.
      const harmlessXargs =
        unresolved.length === 1 &&
        unresolved[0] === XARGS_INPUT &&
        inner.length > 0 &&
        inner.every((words) => writesThroughNoArgument(withoutAssignments(words)));
      if (harmlessXargs) continue;
      // A rule that is this exact line: the user approved its words as written.
      if (unresolved.length > 0 && !exactLineAllowed(command, extra)) {
        return `the line has words known only when it runs (${unresolved.join(", ")}), which could name .git, .mitsu, .claude, .mcp.json or a shell start-up file`;
      }
      const named = await first(paths, (candidate) => protectedPathReason(candidate, home) !== undefined);
      if (named) return `${named.path} may be written: ${protectedPathReason(named.candidate, home)}`;
      const commands = [withoutAssignments(words), ...inner];
      if (commands.some(setsGitConfig))
        return "git may write .git/config, ~/.gitconfig or .git/hooks (core.fsmonitor, core.hooksPath, a hook template) or a file outside the work tree, each of which can change what runs later";
      const tree = await treeInto(commands, first);
      if (tree) return tree;
    }
    return undefined;
  }

  /** Why a command that writes a whole tree (`tar -x`, `cp -a src/. .`) may write a protected file, if it may. */
  async function treeInto(
    commands: string[][],
    first: (
      paths: string[],
      test: (candidate: string) => boolean | Promise<boolean>,
    ) => Promise<{ path: string } | undefined>,
  ): Promise<string | undefined> {
    const holds = async (candidate: string) =>
      protectedPathReason(candidate, home) !== undefined || (await holdsProtected(candidate, cwd, home));
    for (const words of commands) {
      const tree = await first(treeDestinations(words), (candidate) => holdsProtected(candidate, cwd, home));
      if (tree !== undefined)
        return `${words[0]} writes files it does not name into ${tree.path}, which holds or may get .git, .mitsu, .claude, .mcp.json or a shell start-up file`;
      // `cp .bashrc ~`: the destination is a folder, the name the source's.
      const copied = await first(copiedInto(words), (candidate) => !!protectedPathReason(candidate, home));
      if (copied !== undefined)
        return `${copied.path} may be written: ${protectedPathReason(copied.path, home) ?? "a protected file"}`;
      // `ln -s ~ h && cp x h/.bashrc`: what a link made here points at is reached through a name that hides it.
      const linked = await first(linkedTo(words), holds);
      if (linked !== undefined)
        return `${words[0]} makes a link to ${linked.path}, through which later writes may reach .git, .mitsu, .claude or a shell start-up file`;
    }
    return undefined;
  }

  function exactLineAllowed(command: string, extra: readonly PermissionRule[]): boolean {
    const line = command.trim();
    return [...allowRules, ...extra].some((rule) => ruleAppliesToTool(rule, "Bash") && rule.line === line);
  }
  return namesProtected;
}

/** Which rules cover a call's facts, and what "always" would add. */
function ruleMatcher(state: CheckerState) {
  const { home, cwd, deny, ask, allowRules, workspaceRoots, ownFolders, realBase } = state;
  const { pathCandidates } = factFinder(state);
  /** Whether a non-Bash rule covers the call: deny and ask need one path to match, allow needs all. */
  async function covers(rule: PermissionRule, facts: CallFacts, need: "any" | "all"): Promise<boolean> {
    if (!ruleAppliesToTool(rule, facts.toolName, facts.access)) return false;
    if (rule.specifier === undefined || rule.specifier === "*") return true;
    if (rule.files) {
      if (facts.paths.length === 0) return false;
      const base = await realBase(rule.files.base);
      const probe = (path: string) =>
        fileRuleMatches(rule, path, base) ||
        // A denied file below a searched folder: the search would read it.
        (need === "any" && facts.searchesFolder && fileRuleMatches(rule, `${path}/_`, base));
      return need === "any" ? facts.paths.some(probe) : facts.paths.every(probe);
    }
    if (facts.url !== undefined) return urlRuleMatches(rule, facts.url);
    return false;
  }

  function bashCommandMatches(rule: PermissionRule, words: string[]): boolean {
    if (!ruleAppliesToTool(rule, "Bash")) return false;
    if (rule.specifier === undefined || rule.specifier === "*") return true;
    return rule.command?.(words) ?? false;
  }

  async function firstMatch(rules: PermissionRule[], facts: CallFacts): Promise<PermissionRule | undefined> {
    for (const rule of rules) {
      if (facts.bash) {
        for (const file of [...(facts.writes ?? []), ...(facts.reads ?? [])]) {
          if (await covers(rule, file, "any")) return rule;
        }
        if (!ruleAppliesToTool(rule, "Bash")) continue;
        // `FOO=1 rm x` runs rm, and so do `env rm x`, `/bin/rm x`, `sh -c 'rm x'` and `find -exec rm`:
        // deny and ask rules see every form (allow rules do not, since `PATH=… npm test` is not the
        // `npm test` a rule allowed).
        const matches = (words: string[]) =>
          bashCommandMatches(rule, words) || bashCommandMatches(rule, withoutAssignments(words));
        const seen = (command: BashAnalysis["commands"][number]) =>
          matches(command.words) || command.inner.some(matches);
        if (rule.specifier === undefined || facts.bash.commands.some(seen)) return rule;
      } else if (await covers(rule, facts, "any")) return rule;
    }
    return undefined;
  }

  async function allowed(facts: CallFacts, extra: readonly PermissionRule[]): Promise<boolean> {
    const allow = extra.length === 0 ? allowRules : [...allowRules, ...extra];
    if (facts.bash) {
      const { commands, unaccounted } = facts.bash;
      if (allow.some((rule) => ruleAppliesToTool(rule, "Bash") && rule.specifier === undefined)) return true;
      const commandAllowed = (command: BashAnalysis["commands"][number]) =>
        [command.words, ...command.through].some((words) =>
          allow.some((rule) => bashCommandMatches(rule, words)),
        );
      // A rule that is this exact line ("always" for a loop or a pipeline): the user approved the text as a whole.
      const line = facts.command?.trim();
      const lineAllowed =
        line !== undefined &&
        unaccounted.length === 0 &&
        allow.some((rule) => ruleAppliesToTool(rule, "Bash") && rule.line === line);
      if (
        !lineAllowed &&
        (unaccounted.length > 0 || commands.length === 0 || !commands.every(commandAllowed))
      )
        return false;
      // A redirection writes a file: it needs what a Write of that file would need.
      for (const write of facts.writes ?? []) if (!(await writeAllowed(write, allow))) return false;
      return true;
    }
    for (const rule of allow) if (await covers(rule, facts, "all")) return true;
    return false;
  }

  /** Whether an allow rule, acceptEdits or the model's own folders let a write happen without asking. */
  async function writeAllowed(facts: CallFacts, allow: readonly PermissionRule[]): Promise<boolean> {
    if (facts.paths.length === 0) return false;
    for (const rule of allow) if (await covers(rule, facts, "all")) return true;
    return editableWithoutRule(facts);
  }

  /** Whether every path the write lands on is in the workspace (acceptEdits) or in the model's own folders. */
  async function editableWithoutRule(facts: CallFacts): Promise<boolean> {
    const own = await Promise.all(ownFolders.map(realBase));
    const roots = state.mode === "acceptEdits" ? [...(await realWorkspaceRoots()), ...own] : own;
    return facts.realPaths.every((real) => roots.some((root) => isInside(root, real)));
  }

  /**
   * The real paths of the workspace folders: the live folders' as fixed when they were added (resolving them again
   * would follow a link swapped in since), the others resolved.
   */
  async function realWorkspaceRoots(): Promise<string[]> {
    const [real, live] = await Promise.all([realBase(cwd), state.folders.realPaths(realBase)]);
    return [real, ...live];
  }

  /** Why a write must be asked whatever the rules say (see protected-path.ts); the model's own folders are exempt. */
  async function protectedWrite(facts: CallFacts): Promise<string | undefined> {
    const own = await Promise.all(ownFolders.map(realBase));
    for (const path of facts.paths) {
      if (own.some((root) => isInside(root, path)) || ownFolders.some((root) => isInside(root, path)))
        continue;
      const reason = protectedPathReason(path, home);
      if (reason) return reason;
    }
    return undefined;
  }

  /** Whether a Bash line only reads, inside the workspace, nothing a Read deny or ask rule names. */
  async function readOnlyHere(bash: BashAnalysis): Promise<boolean> {
    const roots = workspaceRoots();
    const real = await realWorkspaceRoots();
    return readsOnlyInWorkspace(bash, {
      cwd,
      home,
      roots: [...new Set([...roots, ...real])],
      readRules: [...deny, ...ask].filter((rule) => ruleAppliesToTool(rule, "Read", "read")),
      realBase,
    });
  }

  const commandAllowed = (command: BashAnalysis["commands"][number]) =>
    [command.words, ...command.through].some((words) =>
      allowRules.some((rule) => bashCommandMatches(rule, words)),
    );

  /** For a compound Bash command of which rules allow some parts: the parts that no rule allows. */
  function partlyAllowed(facts: CallFacts): string | undefined {
    if (!facts.bash) return undefined;
    const { commands, unaccounted } = facts.bash;
    if (unaccounted.length > 0) return `rules cannot be checked against ${unaccounted.join(", ")}`;
    const denied = commands.filter((command) => !commandAllowed(command));
    if (denied.length === 0 && facts.bash.writes.length > 0) {
      return `it writes ${facts.bash.writes.map((file) => JSON.stringify(file)).join(", ")}`;
    }
    if (denied.length === 0 || denied.length === commands.length) return undefined;
    return `rules allow part of the command, not ${denied.map((command) => JSON.stringify(command.words.join(" "))).join(", ")}`;
  }

  async function suggestions(facts: CallFacts): Promise<string[]> {
    if (facts.bash) {
      if (facts.bash.unaccounted.length > 0) return [];
      const rules = suggestBashRules(facts.command ?? "", facts.bash, commandAllowed);
      // No rule can spell what the commands need: "always" for the redirections alone would not stop the asking.
      if (rules.length === 0 && !facts.bash.commands.every(commandAllowed)) return [];
      // A redirection's target: the folder rule a Write there would need.
      for (const write of facts.writes ?? []) {
        if (!(await writeAllowed(write, allowRules)))
          rules.push(suggestFileRule("Edit", write.paths[0]!, cwd));
      }
      return [...new Set(rules)];
    }
    const path = facts.paths[0];
    if (path !== undefined && facts.access === "write") return [suggestFileRule("Edit", path, cwd)];
    if (path !== undefined && facts.toolName === "Read") return [suggestFileRule("Read", path, cwd)];
    if (facts.toolName === "WebFetch") {
      // "Always" for one site, not for every URL the model may fetch next.
      const host = hostOf(facts.url);
      return host ? [`WebFetch(domain:${host})`] : [];
    }
    return [facts.toolName];
  }

  return {
    readOnlyHere,
    namesProtected: nameGuard(state, pathCandidates),
    firstMatch,
    allowed,
    writeAllowed,
    editableWithoutRule,
    protectedWrite,
    partlyAllowed,
    suggestions,
  };
}

/** The verdict on a call: deny rules, the mode, ask rules, protected paths, allow rules, the defaults, in that order. */
function decider(
  state: CheckerState,
  matcher: ReturnType<typeof ruleMatcher>,
  options: PermissionCheckerOptions,
) {
  const { home, cwd, deny, ask } = state;
  const { firstMatch, allowed, editableWithoutRule, protectedWrite, readOnlyHere, namesProtected } = matcher;
  const preApprovedRules = new Map<string, PermissionRule>();
  function preApproved(state: ToolState | undefined): PermissionRule[] {
    if (!options.preApproved || !state) return [];
    const rules: PermissionRule[] = [];
    for (const text of options.preApproved(state)) {
      let rule = preApprovedRules.get(text);
      if (!rule) {
        rule = parsePermissionRule(
          text,
          { source: "skill", root: cwd, home },
          "allowed-tools of an active skill",
        );
        preApprovedRules.set(text, rule);
      }
      rules.push(rule);
    }
    return rules;
  }

  /** What refuses a call before anything else is considered: a deny rule, or plan mode for a writing tool. */
  async function refusal(tool: Tool<never>, facts: CallFacts, display: string): Promise<string | undefined> {
    const denyRule = await firstMatch(deny, facts);
    if (denyRule) {
      return `Permission to use ${display} was denied by the rule ${JSON.stringify(denyRule.text)} ${whereRule(denyRule, "deny")}.`;
    }
    if (state.mode === "plan" && !tool.readOnly) {
      return `mitsu is in plan mode: only read-only tools may run, so ${tool.name} was not run. Explore with read-only tools, then present your plan.`;
    }
    return undefined;
  }

  async function decide(
    tool: Tool<never>,
    facts: CallFacts,
    display: string,
    extra: readonly PermissionRule[],
    hookAllowed = false,
  ): Promise<Verdict> {
    const refused = await refusal(tool, facts, display);
    if (refused !== undefined) return { behavior: "deny", message: refused };
    if (state.mode === "bypassPermissions") return { behavior: "allow" };
    const askRule = await firstMatch(ask, facts);
    if (askRule) return { behavior: "ask", askRule };
    const writes = facts.access === "write" ? [facts] : (facts.writes ?? []);
    for (const write of writes) {
      const protectedReason = await protectedWrite(write);
      if (protectedReason) return { behavior: "ask", protectedReason };
    }
    // A PreToolUse hook's "allow" stands in for the user's yes, below the deny and ask rules.
    if (hookAllowed) return { behavior: "allow" };
    if (await allowed(facts, extra)) {
      // `Bash(cp:*)` allows cp, not `cp x .git/hooks/pre-commit`: such a line is asked as a Write there would be.
      // So does `d=.gi; cp x ${d}t/hooks/x`, or `cp x ~/.bashrc`.
      if (tool.name === "Bash" && facts.command !== undefined && facts.bash !== undefined) {
        const protectedReason = await namesProtected(facts.bash, facts.command, extra);
        if (protectedReason) return { behavior: "ask", protectedReason };
      }
      return { behavior: "allow" };
    }
    if (
      options.sandboxAutoAllow &&
      tool.name === "Bash" &&
      facts.bash !== undefined &&
      facts.bash.unaccounted.length === 0 &&
      facts.command !== undefined &&
      (await namesProtected(facts.bash, facts.command)) === undefined
    ) {
      return { behavior: "allow" };
    }
    // `ls`, `cat`, `grep`, `git status` …, proven to only read, and only inside the workspace.
    if (tool.name === "Bash" && facts.bash && (await readOnlyHere(facts.bash))) return { behavior: "allow" };
    if (facts.access === "write" && facts.realPaths.length > 0 && (await editableWithoutRule(facts))) {
      return { behavior: "allow" };
    }
    if (ALLOWED_BY_DEFAULT.has(tool.name)) return { behavior: "allow" };
    return facts.bash && facts.bash.unaccounted.length > 0
      ? { behavior: "ask", unaccounted: facts.bash.unaccounted }
      : { behavior: "ask" };
  }

  return { decide, preApproved, refusal };
}

/** The checker's rule lists from what an embedder passed: parsed rules or strings; a wrong shape is named. */
function ruleLists(rules: PermissionCheckerOptions["rules"], origin: RuleOrigin): LoadedRules {
  if (rules === undefined) return { allow: [], ask: [], deny: [] };
  if (Array.isArray(rules) || typeof rules !== "object" || rules === null) {
    throw new TypeError(
      `options.rules must be an object of rule lists, e.g. { allow: ["Bash(npm test:*)"], deny: ["Read(./.env)"] } (or loadSettings(...).rules); got ${Array.isArray(rules) ? "an array" : typeof rules}.`,
    );
  }
  const list = (name: "allow" | "ask" | "deny"): PermissionRule[] => {
    const value = (rules as RuleLists)[name];
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw new TypeError(`options.rules.${name} must be an array of rules.`);
    return value.map((rule, index) =>
      typeof rule === "string" ? parsePermissionRule(rule, origin, `options.rules.${name}[${index}]`) : rule,
    );
  };
  return { allow: list("allow"), ask: list("ask"), deny: list("deny") };
}

/** Where a rule was written, for messages: `in permissions.deny of /p/.mitsu/settings.json`. */
function whereRule(rule: PermissionRule, list: "deny" | "ask"): string {
  const source = rule.origin.source;
  return source.startsWith("--") ? `given with ${source}` : `in permissions.${list} of ${source}`;
}

function printModeDenial(
  display: string,
  suggestedRules: string[],
  verdict: Extract<Verdict, { behavior: "ask" }>,
) {
  const head = `Permission to use ${display} was denied: mitsu is running without a terminal to ask.`;
  if (verdict.askRule) {
    const rule = verdict.askRule;
    return `${head} The rule ${JSON.stringify(rule.text)} ${whereRule(rule, "ask")} requires asking; run mitsu interactively to approve it, or remove that rule.`;
  }
  if (verdict.protectedReason) {
    return `${head} Writes to this file are always asked (${verdict.protectedReason}); run mitsu interactively to approve it, or use --permission-mode bypassPermissions.`;
  }
  if (verdict.unaccounted || suggestedRules.length === 0) {
    const what = verdict.unaccounted ? ` (${verdict.unaccounted.join("; ")})` : "";
    return `${head} This command uses shell features that rules cannot be checked against${what}; run mitsu interactively to approve it, or use --permission-mode bypassPermissions.`;
  }
  const quoted = suggestedRules.map((rule) => JSON.stringify(rule));
  const list =
    quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} and ${quoted[quoted.length - 1]}`;
  return `${head} To allow it, add ${list} to permissions.allow in .mitsu/settings.json or pass --allowedTools ${JSON.stringify(suggestedRules.join(","))}`;
}

function hostOf(url: unknown): string | undefined {
  if (typeof url !== "string") return undefined;
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined;
  }
}

/** A detailed answer as the loop's decision; its rules are allowed for the session, its updates applied. */
async function verdictDecision(
  answer: PermissionVerdict,
  display: string,
  checker: Pick<PermissionChecker, "allowAlways" | "applyUpdates">,
): Promise<PermissionDecision> {
  if (answer.behavior === "allow") {
    for (const rule of answer.rules ?? []) checker.allowAlways(rule);
    if (answer.updates && answer.updates.length > 0) await checker.applyUpdates(answer.updates);
    return answer.updatedInput ? { behavior: "allow", input: answer.updatedInput } : { behavior: "allow" };
  }
  if (answer.behavior === "deny") {
    return {
      behavior: "deny",
      message: answer.message || `The user denied permission to use ${display}.`,
      ...(answer.interrupt ? { interrupt: true } : {}),
    };
  }
  // Not an answer the contract knows (an embedder's bug): refusing is the safe reading.
  return { behavior: "deny", message: `The user did not allow ${display}.` };
}
