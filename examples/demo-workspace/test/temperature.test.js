import assert from "node:assert/strict";
import { test } from "node:test";
import { toCelsius, toFahrenheit } from "../src/temperature.js";

test("water freezes at 32°F", () => {
  assert.equal(toFahrenheit(0), 32);
});

test("water boils at 100°C", () => {
  assert.equal(toCelsius(212), 100);
});
