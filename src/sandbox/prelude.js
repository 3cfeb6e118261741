// The in-sandbox half of code mode, shared by the quickjs and node backends.
// It is evaluated inside the isolated realm *before* the model's code, as one function
// expression. The host calls it with three functions that only ever receive and return
// primitives (strings, numbers), so no host object is reachable from the model's code:
//   send(op, argsJson)           -> call id (number) or an error message (string)
//   emit(level, text)            -> one console line
//   finish(kind, payload)        -> the end of the run (first call wins)
// It returns `run(code)`, and `settle(id, ok, payload)` for bridge replies.
(function (send, emit, finish, maxPending) {
  "use strict";
  const G = globalThis;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const PromiseCtor = Promise;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const StringCtor = String;
  const apply = Reflect.apply;
  const freeze = Object.freeze;
  const create = Object.create;
  const getPrototypeOf = Object.getPrototypeOf;
  const promiseThen = Promise.prototype.then;
  const promiseFinally = Promise.prototype.finally;
  const AsyncFunction = (async function () {}).constructor;
  const resolved = Promise.resolve(undefined);

  const waiting = create(null);
  let outstanding = 0;
  let result = null;
  let done = false;

  function text(v) {
    if (typeof v === "string") return v;
    try {
      const j = stringify(v);
      if (typeof j === "string") return j;
    } catch (_) { /* fall through */ }
    try { return StringCtor(v); } catch (_) { return "[unprintable]"; }
  }

  function describe(e) {
    try {
      if (e !== null && typeof e === "object" && typeof e.message === "string") {
        const name = typeof e.name === "string" ? e.name : "Error";
        return name + ": " + e.message;
      }
      return text(e);
    } catch (_) {
      return "[unprintable error]";
    }
  }

  function end(kind, payload) {
    if (done) return;
    done = true;
    finish(kind, payload);
  }

  // Once the code has returned and no started call is outstanding, let the reactions of the
  // last settled calls run (a few microtask hops) before reporting the end.
  function settleWhenDrained() {
    if (result === null || outstanding !== 0 || done) return;
    let hops = 4;
    const hop = function () {
      if (done || outstanding !== 0) return;
      if (hops > 0) { hops -= 1; apply(promiseThen, resolved, [hop]); return; }
      end(result[0], result[1]);
    };
    hop();
  }

  function start(op, args) {
    return new PromiseCtor(function (resolve, reject) {
      if (done) { reject(new ErrorCtor("the run is over")); return; }
      if (outstanding >= maxPending) {
        end("pending", "" + maxPending);
        reject(new ErrorCtor("too many pending bridge calls (limit " + maxPending + ")"));
        return;
      }
      let json;
      try { json = stringify(args); } catch (e) {
        reject(new TypeErrorCtor("bridge arguments are not JSON-safe: " + describe(e)));
        return;
      }
      const id = send(op, json);
      if (typeof id !== "number") { reject(new ErrorCtor(StringCtor(id))); return; }
      outstanding += 1;
      const slot = create(null);
      slot.resolve = resolve;
      slot.reject = reject;
      waiting[id] = slot;
    });
  }

  function lazy(op, args) {
    let p = null;
    const go = function () { if (p === null) p = start(op, args); return p; };
    return freeze({
      then: function (onOk, onErr) { return apply(promiseThen, go(), [onOk, onErr]); },
      catch: function (onErr) { return apply(promiseThen, go(), [undefined, onErr]); },
      finally: function (f) { return apply(promiseFinally, go(), [f]); },
    });
  }

  function line(level) {
    return function () {
      let s = "";
      for (let i = 0; i < arguments.length; i++) s += (i === 0 ? "" : " ") + text(arguments[i]);
      emit(level, s);
    };
  }

  G.console = freeze({ log: line("log"), warn: line("warn"), error: line("error") });
  G.openclaw = freeze({
    tools: freeze({
      search: function (query, options) {
        return lazy("search", [query === undefined ? null : query, options === undefined ? null : options]);
      },
      describe: function (id) { return lazy("describe", [id === undefined ? null : id]); },
      call: function (id, args) {
        return lazy("call", [id === undefined ? null : id, args === undefined ? {} : args]);
      },
    }),
  });

  function settle(id, ok, payload) {
    const slot = waiting[id];
    if (slot === undefined) return;
    delete waiting[id];
    outstanding -= 1;
    if (ok) {
      let v;
      try { v = parse(payload); } catch (e) { slot.reject(new ErrorCtor("bad bridge reply")); settleWhenDrained(); return; }
      slot.resolve(v);
    } else {
      slot.reject(new ErrorCtor(payload));
    }
    settleWhenDrained();
  }

  function completed(v) {
    let json;
    try {
      json = stringify(v === undefined ? null : v);
      if (json === undefined) json = "null";
    } catch (e) {
      result = ["value", describe(e)];
      settleWhenDrained();
      return;
    }
    result = ["ok", json];
    settleWhenDrained();
  }

  function failed(e) {
    result = ["thrown", describe(e)];
    settleWhenDrained();
  }

  function run(code) {
    let fn;
    try { fn = new AsyncFunction(code); } catch (e) { end("syntax", describe(e)); return; }
    // QuickJS's Function constructor lets a body like `}); (function () {` close the wrapper.
    if (getPrototypeOf(fn) !== AsyncFunction.prototype) {
      end("syntax", "SyntaxError: code must be the body of one async function");
      return;
    }
    let p;
    try { p = fn(); } catch (e) { failed(e); return; }
    apply(promiseThen, new PromiseCtor(function (resolve) { resolve(p); }), [completed, failed]);
  }

  return [run, settle];
})
