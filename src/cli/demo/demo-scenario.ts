import { join } from "node:path";
import type { SimTurn } from "../../simulator/index.js";

const KELVIN = `/**
 * Kelvin conversions, written by mitsu's scripted demo model.
 * Absolute zero is 0 K = -273.15 °C; a step of one kelvin equals a step of one degree Celsius.
 */

/** The offset between the Celsius and Kelvin scales. */
export const ABSOLUTE_ZERO_CELSIUS = -273.15;

/** Converts degrees Celsius to kelvin. Throws below absolute zero. */
export function toKelvin(celsius) {
  const kelvin = celsius - ABSOLUTE_ZERO_CELSIUS;
  if (kelvin < 0) {
    throw new RangeError(\`\${celsius} °C is below absolute zero\`);
  }
  return kelvin;
}

/** Converts kelvin to degrees Celsius. Throws for negative kelvin. */
export function fromKelvin(kelvin) {
  if (kelvin < 0) {
    throw new RangeError(\`\${kelvin} K is below absolute zero\`);
  }
  return kelvin + ABSOLUTE_ZERO_CELSIUS;
}
`;

/**
 * The demo's scripted model: it explores the workspace (Glob, Grep, Read), fixes the bug with Edit, runs the
 * tests with Bash, writes a new module whose content streams live (eager input streaming), and finishes.
 */
export function demoScenario(workspace: string): SimTurn[] {
  const file = (path: string) => join(workspace, path);
  return [
    {
      content: [
        { type: "text", text: "I'll start by looking at what the project contains." },
        { type: "tool_use", name: "Glob", input: { pattern: "**/*.js" } },
      ],
    },
    {
      content: [
        { type: "text", text: "Let me find where the conversions are defined and used." },
        {
          type: "tool_use",
          name: "Grep",
          input: { pattern: "toFahrenheit", output_mode: "content", "-n": true },
        },
      ],
    },
    { content: [{ type: "tool_use", name: "Read", input: { file_path: file("src/temperature.js") } }] },
    {
      content: [
        {
          type: "text",
          text: "Found the bug: the Fahrenheit offset is 23, but water freezes at 32 °F. Fixing it.",
        },
        {
          type: "tool_use",
          name: "Edit",
          input: {
            file_path: file("src/temperature.js"),
            old_string: "return celsius * 9 / 5 + 23;",
            new_string: "return (celsius * 9) / 5 + 32;",
          },
        },
      ],
    },
    {
      content: [
        { type: "text", text: "Now the tests." },
        {
          type: "tool_use",
          name: "Bash",
          input: {
            command: 'node --test test/ 2>&1 | grep -E "^# (pass|fail)"',
            description: "Run the tests",
          },
        },
      ],
    },
    {
      content: [
        { type: "text", text: "Both tests pass. I'll add Kelvin conversions as a new module." },
        { type: "tool_use", name: "Write", input: { file_path: file("src/kelvin.js"), content: KELVIN } },
      ],
    },
    {
      content: [
        {
          type: "text",
          text: "Done. I fixed `toFahrenheit` (the offset was 23 instead of 32), confirmed the tests pass, and added `src/kelvin.js` with `toKelvin` and `fromKelvin`, which refuse temperatures below absolute zero.",
        },
      ],
    },
  ];
}
