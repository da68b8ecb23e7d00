// Runs the official AsyncAPI parser (@asyncapi/parser, the version package-lock.json pins) on
// the AsyncAPI document read from stdin and prints, as one JSON object on stdout:
//   diagnostics: every finding of the parser and its rulesets ({severity, code, message, path}),
//                severity as the parser names it ("error", "warning", "information", "hint")
//   messages:    for each message the parsed document holds, its key, name and title, and
//                its payload's title and `type` constant
//   operations:  for each operation, its action and the keys of its messages
// The judging (no error, every message of the JSON Schema present) is the Python test's
// (tests/protocol/test_asyncapi_parser.py): this script only reports what the parser saw.
import { Parser, DiagnosticSeverity } from '@asyncapi/parser';

const SEVERITY = {
  [DiagnosticSeverity.Error]: 'error',
  [DiagnosticSeverity.Warning]: 'warning',
  [DiagnosticSeverity.Information]: 'information',
  [DiagnosticSeverity.Hint]: 'hint',
};

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

// The schema a message carries, as the parser resolved it: its title and the constant of
// its `type` (what names the message on the wire).
function payloadOf(message) {
  const payload = message.payload();
  if (!payload) return null;
  const type = payload.properties()?.type;
  return { title: payload.title() ?? null, type: type?.const() ?? null };
}

const parser = new Parser();
const { document, diagnostics } = await parser.parse(await readStdin());
const report = {
  diagnostics: diagnostics.map((d) => ({
    severity: SEVERITY[d.severity] ?? String(d.severity),
    code: String(d.code),
    message: d.message,
    path: d.path.join('/'),
  })),
  messages: [],
  operations: [],
};
if (document) {
  report.messages = document.components().messages().all().map((message) => ({
    key: message.id(),
    name: message.name() ?? null,
    title: message.title() ?? null,
    payload: payloadOf(message),
  }));
  report.operations = document.operations().all().map((operation) => ({
    key: operation.id(),
    action: operation.action(),
    messages: operation.messages().all().map((message) => message.id()),
  }));
}
process.stdout.write(JSON.stringify(report));
