import { describe, expect, it } from "vitest";
import { restateSdkMissing } from "./restate-sdk-missing.js";

describe("restateSdkMissing", () => {
  it("says how to install the optional Restate SDK when it is the missing module, and nothing otherwise", () => {
    const missing = Object.assign(
      new Error("Cannot find package '@restatedev/restate-sdk' imported from x"),
      {
        code: "ERR_MODULE_NOT_FOUND",
      },
    );
    expect(restateSdkMissing(missing)).toContain("npm install @restatedev/restate-sdk@1.17");
    const other = Object.assign(new Error("Cannot find package 'left-pad'"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    expect(restateSdkMissing(other)).toBeUndefined();
    expect(restateSdkMissing(new Error("boom"))).toBeUndefined();
  });
});
