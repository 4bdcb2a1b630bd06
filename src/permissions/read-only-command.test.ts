import { describe, expect, it } from "vitest";
import { isReadOnlyCommand } from "./read-only-command.js";

describe("isReadOnlyCommand (Explore's Bash rule)", () => {
  it("allows commands that only read, also piped and chained", () => {
    for (const command of [
      "ls -la src",
      "git log --oneline -5",
      "git diff HEAD~1 -- src",
      "git status",
      "grep -rn TODO src | head -20",
      "find . -name '*.ts' -not -path './node_modules/*' | wc -l",
      "cat package.json && git show HEAD:README.md",
      "ls src 2>/dev/null",
      "rg auth 2>&1 | sort | uniq -c",
      "cd src && ls",
      "git branch -a",
      "git remote -v",
    ]) {
      expect(isReadOnlyCommand(command), command).toBe(true);
    }
  });

  it("refuses anything that writes, deletes, runs other programs or cannot be analysed", () => {
    for (const command of [
      "rm -rf src",
      "ls > listing.txt",
      "echo hi >> notes.md",
      "cat a 2> err.log",
      "ls >& all.log",
      "find . -name '*.tmp' -delete",
      "find . -exec rm {} ;",
      "sort -o out.txt in.txt",
      "sort --compress-program=sh big.txt",
      "git grep -Ovim TODO",
      "rg --pre ./evil.sh auth",
      "git commit -m x",
      "git -c core.pager=evil log",
      "git push",
      "npm test",
      "ls $(rm -rf x)",
      "ls `whoami`",
      "ls && touch x",
      "sed -i s/a/b/ file",
      "git branch evil",
      "git branch -D main",
      "git remote add x https://x",
      "git stash",
      "cd $d && ls",
      "",
    ]) {
      expect(isReadOnlyCommand(command), command).toBe(false);
    }
  });
});
