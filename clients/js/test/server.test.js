// Against a real server: `python -m app` started here on a free port over a fresh SQLite
// file (ZJ_PYTHON names the Python; by default the repository's .venv/bin/python). A bot made
// of the kit registers over REST, opens a table, sits, lets the house's bots fill the other
// seats and plays a whole hand to hand_ended; the kit's verify checks it, and the model holds
// every tile the server offers. Then examples/bot.js, as the README shows it, does the same.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { WebSocket } from "ws";

import { ProtocolClient, applyEvent, checkHand, emptyHand } from "../src/index.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url)); // the repository
const PACKAGE = fileURLToPath(new URL("../", import.meta.url));
const PASSWORD = "correct horse battery";
const START_TIMEOUT_MS = 60_000;
const HAND_TIMEOUT_MS = 90_000;

function python() {
  if (process.env.ZJ_PYTHON) return process.env.ZJ_PYTHON;
  const venv = join(ROOT, ".venv", "bin", "python");
  return existsSync(venv) ? venv : null;
}

const PYTHON = python();
const skip = PYTHON ? false
  : "no server to play against: set ZJ_PYTHON to a Python with the server installed " +
    "(python3 -m venv .venv && .venv/bin/pip install -e . in the repository)";

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const server = { base: "", child: null, output: "", folder: "", errors: [], partial: "" };

async function startServer() {
  server.folder = mkdtempSync(join(tmpdir(), "zjmahjong-kit-"));
  const port = await freePort();
  const env = { ...process.env };
  for (const name of ["REDIS_URL", "TEST_MODE", "PROCESSES", "METRICS_PORT"]) delete env[name];
  Object.assign(env, {
    HOST: "127.0.0.1", PORT: String(port), DATABASE_URL: `sqlite:///${join(server.folder, "kit.db")}`,
    JWT_SECRET: randomBytes(32).toString("hex"), MIGRATE_ON_START: "true", LOG_LEVEL: "warning",
    LOG_FORMAT: "text", BOT_DELAY_MS: "0",
    // cheap password hashing: a throwaway server's accounts
    ARGON2_TIME_COST: "1", ARGON2_MEMORY_KIB: "1024", ARGON2_PARALLELISM: "1",
    // no shedding: a machine busy with other tests must not refuse this test's one table
    SHED_LAG: "0", SHED_SETTLE_AGE: "0",
  });
  server.base = `http://127.0.0.1:${port}`;
  server.child = spawn(PYTHON, ["-m", "app"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const keep = (chunk) => {
    server.output = (server.output + chunk).slice(-20_000);
    // every line logged at ERROR or above, kept whole (the tail above may drop it)
    const lines = (server.partial + chunk).split("\n");
    server.partial = lines.pop();
    server.errors.push(...lines.filter((line) => / (ERROR|CRITICAL) /.test(line)));
  };
  server.child.stdout.on("data", keep);
  server.child.stderr.on("data", keep);
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  const spawnFailed = new Promise((resolve) => server.child.once("error", resolve));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const done = await Promise.race([exited.then(() => "exited"), spawnFailed.then((e) => `failed: ${e}`),
      sleep(250).then(() => null)]);
    if (done) throw new Error(`${PYTHON} -m app ${done}:\n${server.output}`);
    try {
      if ((await fetch(`${server.base}/health`)).ok) return;
    } catch {
      // not listening yet
    }
  }
  throw new Error(`the server did not answer /health in ${START_TIMEOUT_MS} ms:\n${server.output}`);
}

async function stopServer() {
  const child = server.child;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    await exited;
    clearTimeout(timer);
  }
  if (server.folder) rmSync(server.folder, { recursive: true, force: true });
}

async function call(method, path, body, token) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(server.base + path, { method, headers, body: body && JSON.stringify(body) });
  const data = await r.json();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(data)}`);
  return data;
}

const register = (username) => call("POST", "/auth/register", { username, password: PASSWORD });

before(async () => { if (!skip) await startServer(); });
after(stopServer);

test("a bot built from the kit plays a whole hand against the server and verifies it", { skip }, async () => {
  await register("kit_bot");
  const { access_token: token } = await call("POST", "/auth/login", { username: "kit_bot", password: PASSWORD });
  const table = await call("POST", "/tables", { variant: "lishui", stake: 1 }, token);
  await call("POST", `/tables/${table.id}/sit`, { seat: 2 }, token);

  const hand = emptyHand();
  const events = [];
  const seqs = [];
  const wrong = []; // what the model got wrong, seen at each prompt
  const statuses = [];
  let seat = null;
  let answered = 0;
  let client;
  const ended = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no hand_ended in ${HAND_TIMEOUT_MS} ms: ${statuses}`)),
      HAND_TIMEOUT_MS);
    client = new ProtocolClient({
      url: `${server.base.replace(/^http/, "ws")}/ws`, token: () => token, WebSocket,
      onSeated: (m) => { seat = m.seat; },
      onStatus: (status) => statuses.push(status),
      onEvent: (m) => {
        seqs.push(m.seq);
        events.push(m.event);
        applyEvent(hand, m.event, m.hand_id);
        if (m.event.kind === "hand_ended") {
          clearTimeout(timer);
          resolve(m.event);
        }
      },
      onPrompt: (m) => {
        const legal = m.legal_actions;
        const mine = hand.seats[seat]?.hand ?? [];
        for (const a of legal) {
          if (a.type === "discard" && !mine.includes(a.tile)) wrong.push(`offered ${a.tile}, held ${mine}`);
        }
        const action = legal.find((a) => a.type === "pass") ??
          legal.find((a) => a.type === "discard" && a.tile === hand.drawn) ?? m.timeout_action;
        answered += 1;
        client.act(m.table_id, action);
      },
    });
  });
  client.follow(table.id);
  client.connect();
  await call("POST", `/tables/${table.id}/fill-bots`, {}, token);
  const end = await ended;
  client.close();

  assert.equal(seat, 2);
  assert.ok(answered > 0, "the bot was never asked");
  assert.deepEqual(wrong, []);
  assert.deepEqual(seqs, seqs.map((_, i) => i + 1)); // every event once, in order
  assert.deepEqual(statuses.slice(0, 2), ["connecting", "open"]);
  assert.equal(hand.ended.outcome, end.outcome);
  hand.seats.forEach((s, i) => assert.deepEqual([...s.hand].sort(), [...end.hands[i]].sort()));
  const verdict = checkHand(events);
  assert.equal(verdict.status, "verified", verdict.message);
  assert.ok(verdict.dealt >= 13, verdict.message);
});

test("examples/bot.js, the README's bot, plays a hand and verifies it", { skip }, async () => {
  await register("kit_example");
  const child = spawn(process.execPath, ["examples/bot.js", server.base, "kit_example", PASSWORD],
    { cwd: PACKAGE, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (chunk) => { out += chunk; });
  child.stderr.on("data", (chunk) => { out += chunk; });
  const timer = setTimeout(() => child.kill("SIGKILL"), HAND_TIMEOUT_MS);
  const code = await new Promise((resolve) => child.once("exit", resolve));
  clearTimeout(timer);
  assert.equal(code, 0, out);
  assert.match(out, /^(win|draw|escape) \{\s+status: 'verified'/m, out);
});

test("the server logged no ERROR while the kit's bots played", { skip }, () => {
  assert.deepEqual(server.errors, []);
});
