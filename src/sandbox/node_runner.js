// The child side of the node backend. It runs inside the jail (no network, empty root,
// unprivileged user, Node permission model with no grants) and talks JSON lines on stdio:
//   in:  {"t":"run","code":…,"maxPending":n,"maxOutput":n}  {"t":"result","id":n,"ok":b,"payload":s}
//   out: {"t":"ready"}  {"t":"call","id":n,"op":s,"args":s}  {"t":"log","level":s,"text":s}  {"t":"done","kind":s,"payload":s}
// The parent puts the prelude's source in `PRELUDE_SOURCE` ahead of this file. The child makes
// the realm of its one run and evaluates the prelude in it, then says `ready` (a warm child
// waits there for its run). The model's code runs in that fresh vm realm, whose global has no
// prototype link to this one; the functions handed to it take and return primitives only and
// never throw.
// Output is written synchronously (a full pipe blocks the code instead of piling up in the
// heap) and counted as the parent counts it: a console line or a returned value that would
// pass `maxOutput` ends the run with kind `output` before it is written.
"use strict";
const vm = require("vm");
const fs = require("fs");

let nextId = 0;
let settle = null;
let pending = "";
let maxOutput = 0;
let outputUsed = 0;

function write(message) {
  const data = Buffer.from(JSON.stringify(message) + "\n", "utf8");
  let offset = 0;
  while (offset < data.length) {
    try {
      offset += fs.writeSync(1, data, offset, data.length - offset);
    } catch (e) {
      if (!e || e.code !== "EAGAIN") process.exit(70);
    }
  }
}

function send(op, args) {
  nextId += 1;
  write({ t: "call", id: nextId, op: "" + op, args: "" + args });
  return nextId;
}

// Takes `bytes` of the output budget; past it, the run ends here and now.
function spend(bytes) {
  outputUsed += bytes;
  if (outputUsed > maxOutput) {
    write({ t: "done", kind: "output", payload: "" + maxOutput });
    process.exit(0);
  }
}

function emit(level, text) {
  const line = level === "warn" || level === "error" ? "[" + level + "] " + text : "" + text;
  spend(Buffer.byteLength(line, "utf8"));
  write({ t: "log", level: "" + level, text: "" + text });
}

function finish(kind, payload) {
  if (kind === "ok") spend(Buffer.byteLength("" + payload, "utf8"));
  write({ t: "done", kind: "" + kind, payload: "" + payload });
}

// The realm of the one run, with the prelude evaluated in it (not yet called).
function prepare() {
  const context = vm.createContext(Object.create(null), {
    name: "tool_search_code",
    codeGeneration: { strings: true, wasm: false },
  });
  // Without this hook (and --experimental-vm-modules) import() rejects with an error from
  // this realm, whose constructor chain reaches `process`. The hook throws one of its own.
  const denied = vm.runInContext('new Error("import() is not available in code mode")', context);
  const importModuleDynamically = function () { throw denied; };
  return vm.runInContext(PRELUDE_SOURCE, context, { filename: "prelude.js", importModuleDynamically });
}

const prelude = prepare();

function start(message) {
  maxOutput = Number(message.maxOutput);
  const pair = prelude(send, emit, finish, message.maxPending);
  settle = pair[1];
  pair[0]("" + message.code);
}

function handle(line) {
  let message;
  try { message = JSON.parse(line); } catch (_) { return; }
  if (message.t === "run" && settle === null) {
    try { start(message); } catch (e) { finish("crashed", "" + (e && e.message)); }
  } else if (message.t === "result" && settle !== null) {
    try { settle(message.id, message.ok === true, "" + message.payload); } catch (_) { /* the code's own breakage */ }
  }
}

process.on("unhandledRejection", function () {});
process.stdin.setEncoding("utf8");
process.stdin.on("data", function (chunk) {
  pending += chunk;
  let i;
  while ((i = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, i);
    pending = pending.slice(i + 1);
    handle(line);
  }
});
process.stdin.on("end", function () { process.exit(0); });
write({ t: "ready" });
