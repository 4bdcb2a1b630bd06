import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { BROKEN_PIPE_EXIT, exitOnBrokenPipe } from "../../src/cli/broken-pipe.js";

const errnoError = (code: string) => Object.assign(new Error(code), { code });

describe("exitOnBrokenPipe", () => {
  it("exits with 141 when the reader has gone (EPIPE), instead of crashing", () => {
    const stream = new EventEmitter();
    const codes: number[] = [];
    exitOnBrokenPipe(stream, (code) => codes.push(code));
    stream.emit("error", errnoError("EPIPE"));
    expect(codes).toEqual([BROKEN_PIPE_EXIT]);
  });

  it("lets any other error through", () => {
    const stream = new EventEmitter();
    const codes: number[] = [];
    exitOnBrokenPipe(stream, (code) => codes.push(code));
    expect(() => stream.emit("error", errnoError("EIO"))).toThrow("EIO");
    expect(codes).toEqual([]);
  });
});
