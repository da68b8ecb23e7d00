// The README shows examples/bot.js as it is (the file is run against a real server by
// server.test.js, so the README's bot is one that plays).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const read = (name) => readFileSync(new URL(`../${name}`, import.meta.url), "utf8");

test("the README's bot is examples/bot.js without its opening comment", () => {
  const readme = read("README.md");
  const start = readme.indexOf("```js\n", readme.indexOf("The bot, whole")) + 6;
  const shown = readme.slice(start, readme.indexOf("```\n", start));
  const file = read("examples/bot.js").split("\n").filter((line) => !line.startsWith("//")).join("\n");
  assert.equal(shown, file);
  assert.equal(shown.trim().split("\n").length, 20);
});
