import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BackgroundShells } from "../../tools/background-shells.js";
import type { Capability } from "../capability.js";

/** The commands the model starts with Bash `run_in_background` (Bash takes them); closing stops their groups. */
export interface ShellsCapability extends Capability {
  readonly shells: BackgroundShells;
}

export function backgroundShellsCapability(): ShellsCapability {
  const shells = new BackgroundShells({
    outputDir: join(tmpdir(), `mitsu-shells-${process.pid}-${randomBytes(4).toString("hex")}`),
  });
  return {
    name: "background-shells",
    shells,
    close: () => shells.killAll(),
  };
}
