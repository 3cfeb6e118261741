// Code Mode's guest API, put before the model's cell in the same async function body, over
// the sandbox's own bridge (openclaw.tools.search/describe/call), which it then removes.
// __CATALOG__ is replaced with [[callableName, toolName, id, source, server]] of every
// catalogued tool; MCP tools (source "mcp") are reached under MCP.<server>.<tool> only.
const __cm = (function (tools, entries) {
  "use strict";
  const freeze = Object.freeze;
  const byId = Object.create(null);
  const globals = Object.create(null);
  const mcp = Object.create(null);
  function unwrap(envelope) {
    const result = envelope && envelope.result;
    if (result && typeof result === "object" && result.details !== undefined) return result.details;
    return result;
  }
  function handle(e, description) {
    const [callableName, toolName, id, source] = e;
    const fn = async function (args) {
      return unwrap(await tools.call(id, args === undefined ? {} : args));
    };
    const meta = { callableName, toolName, source };
    if (description !== undefined) meta.description = description;
    fn.callableName = callableName;
    fn.toolName = toolName;
    fn.source = source;
    if (description !== undefined) fn.description = description;
    fn.describe = async function () {
      const d = await tools.describe(id);
      const out = { name: d.name, callableName, description: d.description, source, parameters: d.parameters };
      if (d.label) out.label = d.label;
      if (d.input) out.input = d.input;
      if (d.output) out.output = d.output;
      if (d.outputSchema) out.outputSchema = d.outputSchema;
      return out;
    };
    fn.toJSON = function () { return meta; };
    return freeze(fn);
  }
  for (const e of entries) {
    byId[e[2]] = e;
    if (e[3] === "mcp") {
      const server = e[4];
      if (mcp[server] === undefined) mcp[server] = Object.create(null);
      mcp[server][e[1]] = handle(e);
    } else {
      globals[e[0]] = handle(e);
    }
  }
  for (const server in mcp) freeze(mcp[server]);
  const catalog = freeze({
    search: async function (query, options) {
      if (typeof query !== "string") throw new TypeError("invalid_input: query must be a string");
      const limit = options && options.limit !== undefined ? { limit: options.limit } : null;
      const found = await tools.search(query, limit);
      const out = [];
      for (const item of found) {
        const e = byId[item.id];
        if (e !== undefined) out.push(handle(e, item.description));
      }
      return freeze(out);
    },
    all: function () {
      const out = [];
      for (const name in globals) out.push(globals[name]);
      return freeze(out);
    },
  });
  const yield_control = async function (reason) {
    await tools.call("__code_mode_yield__", { reason: reason === undefined ? null : String(reason) });
    return null;
  };
  return freeze({ catalog, MCP: freeze(mcp), globals: freeze(globals), yield_control });
})(globalThis.openclaw.tools, __CATALOG__);
delete globalThis.openclaw;
const catalog = __cm.catalog;
const MCP = __cm.MCP;
const yield_control = __cm.yield_control;
