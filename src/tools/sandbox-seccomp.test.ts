import { describe, expect, it } from "vitest";
import { unixSocketFilter } from "./sandbox-seccomp.js";

/** The program's instructions as [code, jt, jf, k]. */
function decode(program: Buffer): Array<[number, number, number, number]> {
  const out: Array<[number, number, number, number]> = [];
  for (let at = 0; at < program.length; at += 8) {
    out.push([
      program.readUInt16LE(at),
      program.readUInt8(at + 2),
      program.readUInt8(at + 3),
      program.readUInt32LE(at + 4),
    ]);
  }
  return out;
}

describe("the unix-socket seccomp filter", () => {
  it.each(["x64", "arm64"])(
    "for %s: whole instructions, every jump inside the program, ending in returns",
    (arch) => {
      const program = unixSocketFilter(arch);
      expect(program).toBeDefined();
      expect(program!.length % 8).toBe(0);
      const lines = decode(program!);
      lines.forEach(([code, jt, jf], i) => {
        if (code === 0x15) {
          expect(i + 1 + jt).toBeLessThan(lines.length);
          expect(i + 1 + jf).toBeLessThan(lines.length);
        }
      });
      expect(lines.at(-1)?.[0]).toBe(0x06);
      // EPERM for AF_UNIX sockets, ENOSYS for io_uring, KILL for an entry point it does not know.
      const returns = lines.filter(([code]) => code === 0x06).map(([, , , k]) => k >>> 0);
      expect(returns).toEqual(expect.arrayContaining([0x0005_0001, 0x0005_0026, 0x8000_0000, 0x7fff_0000]));
    },
  );

  it("is absent where the architecture's numbers are not known", () => {
    expect(unixSocketFilter("riscv64")).toBeUndefined();
  });
});
