"""Validates provider-native tool search bodies (OpenAI Responses `tool_search`, Anthropic Messages
tool search tools) against the official Python SDKs' own types, strictly.

Why: the mock provider will speak both providers' native tool search protocols (issue #31), and a
mock that drifts from the real wire shapes measures nothing. The SDKs' types are the closest thing
to the providers' contracts we can run offline. docs/native-tool-search.md describes the shapes.

Input: documents, each a JSON envelope
    {"protocol": "openai-responses" | "anthropic-messages",
     "kind": "request" | "response" | "stream" | "error",
     "body": {...}             (request, response, error)
     "sse": "event: ...\\n..."  (stream: the exact event-stream text)
     "expect_invalid": [...]}  (fixtures only: substrings of the problems it must produce)
given as files, directories of files, or a JSON array of envelopes on stdin (`-`).

Each interpreter holds one SDK (scripts/install-openai-sdk.sh and scripts/install-anthropic-sdk.sh
install them in separate virtualenvs), so a run checks ONE protocol, named by --protocol; the
summary line counts the documents of the other protocol as "other_protocol", never as passed.
A run that checked no document of its protocol fails.

What "strict" means here:
  - request bodies (the SDKs' TypedDict params, e.g. openai `ResponseCreateParamsNonStreaming`,
    anthropic `MessageCreateParamsNonStreaming`): validated by pydantic in strict mode against a
    copy of the SDK's type in which every TypedDict and model forbids keys it does not declare and
    every `Iterable[...]` is a list (pydantic checks iterables lazily, which would pass anything);
  - response bodies (`openai.types.responses.Response`, `anthropic.types.Message`), stream events
    (each member of `ResponseStreamEvent` / `RawMessageStreamEvent`) and error bodies:
    `model_validate(strict=True)` on the SDK's own model, and a key the model does not declare is an
    error too (the SDKs' models accept unknown keys silently);
  - then the protocol's own rules that no type expresses (event order and numbering, a search
    output answering a search call, deferred tools only beside a search tool, tool references
    naming defined tools);
  - then, on a document that passed, the SDK's own client, in-process over a mock transport:
    `create(**request)` must send exactly the request, and the SDK's stream helper must digest a
    stream into a final object that is itself valid (Anthropic's is assembled from the deltas).
Each problem says which: "sdk", "protocol" or "sdk client".
Every problem names the document and the field path (`tools.1.defer_load`), and the SDK class.

Modes:
    python sdk_native_conformance.py --protocol openai-responses DOC...   exit 1 on any problem
    python sdk_native_conformance.py --protocol anthropic-messages --self-test tests/it/fixtures/native
        every fixture without `expect_invalid` must pass, and every one with it must fail with each
        listed substring among its problems; and the SDK-client request check must refuse a key
        create() does not take: the proof that the checks can fail.

The Rust side (tests/it/sdk_conformance.rs) will feed it the mock provider's real native bodies —
requests it received, responses and event streams it sent — once the mock speaks the protocols.
Prints one JSON summary line.
"""

import argparse
import collections.abc as abc
import json
import pathlib
import sys
import typing
import warnings

import pydantic
import typing_extensions

PROTOCOLS = ("openai-responses", "anthropic-messages")
KINDS = ("request", "response", "stream", "error")


# ---------------------------------------------------------------------------------------------
# Strict copies of the SDKs' param types
# ---------------------------------------------------------------------------------------------

# Containers the SDKs declare that arrive as JSON arrays (pydantic would check the abstract ones lazily).
_SEQUENCES = {list, tuple, set, frozenset, abc.Iterable, abc.Sequence, abc.Iterator}


def literal_values(hint):
    """The string literals a `type` annotation admits (through Optional/Union/Annotated), or None."""
    values, stack = set(), [hint]
    while stack:
        tp = stack.pop()
        args = typing_extensions.get_args(tp)
        if typing_extensions.get_origin(tp) is typing.Literal:
            values.update(a for a in args if isinstance(a, str))
        else:
            stack.extend(args)
    return values or None


def _is_typeddict(tp):
    return isinstance(tp, type) and typing_extensions.is_typeddict(tp)


def _is_model(tp):
    return isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


class StrictTypes:
    """Rewrites an SDK type into one pydantic checks strictly: TypedDicts and models become
    TypedDicts that forbid undeclared keys (a TypedDict the SDK marks `extra: allow`, such as an
    open JSON schema, keeps allowing them), iterables become lists. Remembers each rewritten class
    by name with the `type` values it accepts, to pick the meant member of a failed union."""

    def __init__(self):
        self.done = {}
        self.type_values = {}  # class name -> (set of `type` literals or None, type required)

    def convert(self, tp):
        if tp is typing.Any or tp is object or tp is type(None) or tp in (str, int, float, bool):
            return tp
        origin = typing_extensions.get_origin(tp)
        args = typing_extensions.get_args(tp)
        if origin in (typing.Annotated, typing_extensions.Required, typing_extensions.NotRequired):
            return self.convert(args[0])  # the SDKs' annotations serve their own (de)serialisers
        if origin is typing.Union:
            return typing.Union[tuple(self.convert(a) for a in args)]
        if origin is typing.Literal:
            return tp
        if origin is dict:
            return typing.Dict[self.convert(args[0]), self.convert(args[1])] if args else dict
        if origin in _SEQUENCES or getattr(origin, "__name__", "") == "SequenceNotStr":
            return typing.List[self.convert(args[0])] if args else list
        if _is_typeddict(tp):
            return self._typeddict(tp)
        if _is_model(tp):
            return self._model(tp)
        if isinstance(tp, type) and origin is None:
            return tp
        if origin is typing.IO or tp is typing.IO or origin in (typing.BinaryIO, typing.TextIO):
            # File uploads (multipart params): a JSON body can never carry one, and a decoded JSON
            # document never holds Python bytes, so this member never validates.
            return bytes
        raise TypeError(f"no strict form for {tp!r}")

    def _record(self, name, hints, required):
        values = literal_values(hints["type"]) if "type" in hints else None
        old = self.type_values.get(name)  # SDK classes of one name in several modules: merge
        if old is not None and old[0] is not None and values is not None:
            values = values | old[0]
        self.type_values[name] = (values, "type" in required)

    def _build(self, key, name, hints, required, extra):
        if key in self.done:
            return self.done[key]
        # A recursive type would need a forward reference; the native shapes have none. Fail loudly.
        self.done[key] = None
        fields = {}
        for field, hint in hints.items():
            fields[field] = self.convert(hint)
            if fields[field] is None:
                raise TypeError(f"{name}.{field} is recursive; add forward-reference support")
        wrapped = {
            field: (typing_extensions.Required[t] if field in required else typing_extensions.NotRequired[t])
            for field, t in fields.items()
        }
        cls = typing_extensions.TypedDict(name, wrapped)
        cls.__pydantic_config__ = {"extra": extra}
        self._record(name, hints, required)
        self.done[key] = cls
        return cls

    def _typeddict(self, tp):
        hints = typing_extensions.get_type_hints(tp, include_extras=True)
        # The SDKs write their annotations as strings (`from __future__ import annotations`), so
        # the class's own __required_keys__ misses a `Required[...]` on a total=False class: read
        # the wrappers from the resolved hints.
        wrapper = {key: typing_extensions.get_origin(hint) for key, hint in hints.items()}
        required = {k for k in tp.__required_keys__ if wrapper.get(k) is not typing_extensions.NotRequired}
        required |= {k for k, w in wrapper.items() if w is typing_extensions.Required}
        config = getattr(tp, "__pydantic_config__", None) or {}
        extra = "allow" if config.get("extra") == "allow" else "forbid"
        return self._build(tp, tp.__name__, hints, required, extra)

    def _model(self, tp):
        hints, required = {}, set()
        for name, info in tp.model_fields.items():
            key = info.alias or name
            hints[key] = info.annotation
            if info.is_required():
                required.add(key)
        return self._build(tp, tp.__name__, hints, required, "forbid")


_SCALARS = {"str": str, "int": int, "float": (int, float), "bool": bool, "none": type(None)}


def _is_tag(step, type_values):
    """Whether a loc step names a union member (a class, or pydantic's name for a type) rather
    than a key of the data."""
    return isinstance(step, str) and (step in type_values or step in _SCALARS or "[" in step)


def _member_fits(tag, value, type_values):
    """Whether the data could be meant as this union member: its JSON kind matches, and a `type`
    it carries is one the member accepts (without one, the member must not require it)."""
    if tag in _SCALARS:
        return isinstance(value, _SCALARS[tag]) and not (tag in ("int", "float") and isinstance(value, bool))
    if tag.startswith(("list[", "tuple[", "set[")):
        return isinstance(value, list)
    if tag.startswith("dict["):
        return isinstance(value, dict)
    if tag.startswith("literal["):
        return isinstance(value, str)
    if tag in type_values:
        if not isinstance(value, dict):
            return False
        values, type_required = type_values[tag]
        kind = value.get("type")
        if kind is None:
            return not type_required
        return values is None or kind in values
    return True


def _walk(loc, data, type_values):
    """(field path, member tags, whether every member on the way fits the data, the path of the
    outermost union on the way or None)."""
    path, tags, fits, cursor, anchor = [], [], True, data, None
    for step in loc:
        if isinstance(cursor, list) and isinstance(step, int):
            path.append(step)
            cursor = cursor[step] if 0 <= step < len(cursor) else None
        elif isinstance(cursor, dict) and step in cursor:
            path.append(step)
            cursor = cursor[step]
        elif _is_tag(step, type_values):
            anchor = tuple(path) if anchor is None else anchor
            tags.append(step)
            fits = fits and _member_fits(step, cursor, type_values)
        else:
            path.append(step)
            cursor = None
    return path, tags, fits, anchor


def describe(errors, data, type_values, where, what):
    """One line per error, with the field path and the SDK class. A failed union reports every
    member's errors: per union, keep those of the members the data fits, and of those the errors
    that got deepest into the data (the member it was most likely meant as). This only chooses
    which messages to show, never whether the body failed; a union where the choice would keep
    nothing shows all its errors."""
    groups = {}
    for error in errors:
        path, tags, fits, anchor = _walk(error["loc"], data, type_values)
        groups.setdefault(anchor, []).append((error, path, tags, fits))
    problems, hidden = set(), 0
    for anchor, group in groups.items():
        shown = group
        if anchor is not None:
            shown = [g for g in group if g[3]] or group
            deepest = max(len(g[1]) for g in shown)
            shown = [g for g in shown if len(g[1]) == deepest]
        hidden += len(group) - len(shown)
        for error, path, tags, _ in shown:
            member = f" as {tags[-1]}" if tags and tags[-1] in type_values else ""
            problems.add(f"{where}.{'.'.join(str(p) for p in path)}: {error['msg']} (sdk: {what}{member})")
    if hidden:
        problems.add(f"{where}: and {hidden} errors of other union members")
    return sorted(problems)


class ParamCheck:
    """Strict validation of a request body against an SDK TypedDict."""

    def __init__(self, sdk_type, name):
        self.strict = StrictTypes()
        self.adapter = pydantic.TypeAdapter(self.strict.convert(sdk_type))
        self.name = name

    def __call__(self, data, where):
        try:
            self.adapter.validate_python(data, strict=True)
        except pydantic.ValidationError as error:
            return describe(error.errors(), data, self.strict.type_values, where, self.name)
        return []


def _model_type_values(root):
    """Class name -> (accepted `type` literals, type required) for every model reachable from
    `root`, for `narrow`."""
    out, seen, stack = {}, set(), [root]
    while stack:
        tp = stack.pop()
        if id(tp) in seen:
            continue
        seen.add(id(tp))
        if _is_model(tp):
            fields = tp.model_fields
            values = literal_values(fields["type"].annotation) if "type" in fields else None
            out[tp.__name__] = (values, "type" in fields and fields["type"].is_required())
            stack.extend(info.annotation for info in fields.values())
        else:
            stack.extend(typing_extensions.get_args(tp))
    return out


def extras(value, path):
    """Paths of keys a validated SDK model did not declare (recursively)."""
    found = []
    if isinstance(value, pydantic.BaseModel):
        for key in value.model_extra or {}:
            found.append(f"{path}.{key}: not a field of {type(value).__name__} (sdk)")
        for name in type(value).model_fields:
            found.extend(extras(getattr(value, name), f"{path}.{name}"))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found.extend(extras(item, f"{path}.{i}"))
    elif isinstance(value, dict):
        for key, item in value.items():
            found.extend(extras(item, f"{path}.{key}"))
    return found


class ModelCheck:
    """Strict validation of a body against an SDK response model, plus undeclared keys."""

    def __init__(self, cls):
        self.cls = cls
        self.type_values = _model_type_values(cls)

    def __call__(self, data, where):
        try:
            model = self.cls.model_validate(data, strict=True)
        except pydantic.ValidationError as error:
            return describe(error.errors(), data, self.type_values, where, self.cls.__name__)
        return extras(model, where)


def union_members(union):
    """`type` value -> member class, for a union of models that each fix one `type` literal."""
    members = {}
    stack = [union]
    while stack:
        tp = stack.pop()
        if _is_model(tp):
            for kind in typing_extensions.get_args(tp.model_fields["type"].annotation):
                members[kind] = tp
        else:
            stack.extend(typing_extensions.get_args(tp))
    return members


def obj(value):
    """`value` when it is a JSON object, else an empty one: the protocol rules read fields of
    bodies the type checks may already have refused, and must not crash on them."""
    return value if isinstance(value, dict) else {}


def sse_text(payloads):
    """An event stream of these data payloads, each under an `event:` line naming its type."""
    return "".join(f"event: {p['type']}\ndata: {json.dumps(p)}\n\n" for p in payloads)


def parse_sse(text, where):
    """(event name, parsed data) per frame; a problem per frame that is not one event + JSON data."""
    frames, problems = [], []
    for index, frame in enumerate(f for f in text.replace("\r\n", "\n").split("\n\n") if f.strip()):
        at = f"{where} event {index}"
        lines = frame.split("\n")
        events = [l[len("event:") :].strip() for l in lines if l.startswith("event:")]
        data = "\n".join(l[len("data:") :].removeprefix(" ") for l in lines if l.startswith("data:"))
        unknown = [l for l in lines if l and not l.startswith(("event:", "data:", ":", "id:", "retry:"))]
        if unknown:
            problems.append(f"{at}: not an event-stream line: {unknown[0][:80]!r} (protocol)")
        if len(events) != 1:
            problems.append(f"{at}: {len(events)} `event:` lines, expected exactly 1 (protocol)")
        try:
            payload = json.loads(data)
        except ValueError as error:
            problems.append(f"{at}: data is not JSON ({error}) (protocol)")
            continue
        frames.append((index, events[0] if events else None, payload))
    if not frames and not problems:
        problems.append(f"{where}: empty event stream (protocol)")
    return frames, problems


class SdkChecks:
    """The SDK checks of one protocol: request params (JSON and streaming), the response body,
    the error body, and each stream event by its `type`."""

    def __init__(self, version, nonstreaming, streaming, body, error, events):
        self.version = version
        self.requests = {
            False: ParamCheck(nonstreaming, nonstreaming.__name__),
            True: ParamCheck(streaming, streaming.__name__),
        }
        self.body = ModelCheck(body)
        self.error_body = ModelCheck(error)
        self.events = {kind: ModelCheck(cls) for kind, cls in union_members(events).items()}

    # The SDK's own client, run in-process over a mock transport: nothing leaves the process.
    # Each protocol says how to build its client, call create(), drain its stream helper, and
    # what to answer a request with (`make_client`, `create`, `accumulate`, `CANNED`).

    def _client(self, reply):
        import httpx2  # the HTTP client both pinned SDKs are built on

        sent = []

        def handle(request):
            body = json.loads(request.content)
            sent.append(body)
            kind, payload = reply(body)
            if kind == "sse":
                headers = {"content-type": "text/event-stream"}
                return httpx2.Response(200, headers=headers, content=payload.encode())
            return httpx2.Response(200, json=payload)

        return self.make_client(httpx2.Client(transport=httpx2.MockTransport(handle))), sent

    def client_request(self, body, where):
        """The SDK's create() takes the body as its keyword arguments and sends exactly it."""
        client, sent = self._client(lambda b: self.CANNED["sse" if b.get("stream") else "json"])
        try:
            result = self.create(client, body)
            if body.get("stream") is True:
                for _ in result:
                    pass
        except Exception as error:  # the SDK refusing the body is the finding, with its cause
            return [f"{where}: the SDK's create() fails on it: {type(error).__name__}: {error} (sdk client)"]
        if len(sent) != 1:
            return [f"{where}: the SDK's create() sent {len(sent)} requests, expected 1 (sdk client)"]
        return [
            f"{where}{path}: the SDK sends {ours!r}, the body has {theirs!r} (sdk client)"
            for path, ours, theirs in differences(sent[0], body)
        ]

    def client_stream(self, sse, where):
        """The SDK's stream helper rebuilds the final object from the events; that object must
        itself be valid (for Anthropic it is assembled from the deltas, so this checks them)."""
        client, _ = self._client(lambda _body: ("sse", sse))
        try:
            with warnings.catch_warnings():
                # pydantic warns when it dumps what the helper built from bad parts; the strict
                # check below reports the same thing with its field path.
                warnings.simplefilter("ignore", UserWarning)
                final = self.accumulate(client)
        except Exception as error:  # the helper choking on the stream is the finding
            return [
                f"{where}: the SDK's stream helper fails on it: {type(error).__name__}: {error} (sdk client)"
            ]
        return self.response_body(final, f"{where} (the SDK's final object)")


def differences(ours, theirs, path=""):
    """(path, ours, theirs) where two JSON values differ (the first few)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        found = []
        for key in sorted(set(ours) | set(theirs)):
            found.extend(differences(ours.get(key, "<absent>"), theirs.get(key, "<absent>"), f"{path}.{key}"))
        return found[:5]
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        found = []
        for i, (a, b) in enumerate(zip(ours, theirs)):
            found.extend(differences(a, b, f"{path}.{i}"))
        return found[:5]
    same = ours == theirs and type(ours) is type(theirs)
    return [] if same else [(path, ours, theirs)]


# ---------------------------------------------------------------------------------------------
# OpenAI Responses
# ---------------------------------------------------------------------------------------------


class OpenAIResponses(SdkChecks):
    name = "openai-responses"
    MINIMAL_REQUEST = {"model": "mock-openai/qa", "input": "x"}
    _CANNED_RESPONSE = {
        "id": "resp_canned",
        "object": "response",
        "created_at": 0,
        "model": "m",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    CANNED = {
        "json": ("json", _CANNED_RESPONSE),
        "sse": (
            "sse",
            sse_text(
                [
                    {"type": "response.created", "sequence_number": 0, "response": _CANNED_RESPONSE},
                    {"type": "response.completed", "sequence_number": 1, "response": _CANNED_RESPONSE},
                ]
            ),
        ),
    }

    @staticmethod
    def make_client(http):
        import openai

        return openai.OpenAI(
            api_key="qa-key", base_url="http://127.0.0.1:9/v1", http_client=http, max_retries=0
        )

    @staticmethod
    def create(client, body):
        return client.responses.create(**body)

    @staticmethod
    def accumulate(client):
        with client.responses.stream(model="mock-openai/qa", input="x") as stream:
            for _ in stream:
                pass
            final = stream.get_final_response().to_dict()
        # The helper returns a ParsedResponse: its function calls gain `parsed_arguments` and its
        # texts `parsed` (the helper's, not the wire's); drop them to judge the wire shape.
        for item in final.get("output", []):
            item.pop("parsed_arguments", None)
            for part in item.get("content") or []:
                if isinstance(part, dict):
                    part.pop("parsed", None)
        return final

    def __init__(self):
        import openai
        from openai.types.responses import Response, ResponseStreamEvent
        from openai.types.responses import response_create_params as params
        from openai.types.shared import ErrorObject

        super().__init__(
            f"openai {openai.__version__}",
            params.ResponseCreateParamsNonStreaming,
            params.ResponseCreateParamsStreaming,
            Response,
            ErrorObject,
            ResponseStreamEvent,
        )

    @staticmethod
    def _functions(tools):
        for i, tool in enumerate(tools or []):
            if not isinstance(tool, dict):
                continue
            if tool.get("type") == "function":
                yield f"tools.{i}", tool
            elif tool.get("type") == "namespace":
                for j, inner in enumerate(tool.get("tools") or []):
                    if isinstance(inner, dict) and inner.get("type") == "function":
                        yield f"tools.{i}.tools.{j}", inner

    def request(self, body, where):
        if not isinstance(body, dict):
            return [f"{where}: a request body is a JSON object (protocol)"]
        problems = self.requests[body.get("stream") is True](body, where)
        tools = body.get("tools") if isinstance(body.get("tools"), list) else []
        searches = [i for i, t in enumerate(tools) if isinstance(t, dict) and t.get("type") == "tool_search"]
        deferred = [path for path, tool in self._functions(tools) if tool.get("defer_loading") is True]
        if deferred and not searches:
            problems.append(
                f"{where}.{deferred[0]}.defer_loading: a deferred function needs a tool_search tool in tools (protocol)"
            )
        if len(searches) > 1:
            problems.append(f"{where}.tools.{searches[1]}: a second tool_search tool (protocol)")
        problems.extend(
            self._search_pairs(body.get("input"), f"{where}.input", body.get("previous_response_id"))
        )
        return problems

    @staticmethod
    def _search_pairs(items, where, previous=None):
        """A tool_search_output answers the tool_search_call with its call_id, in the same mode;
        a client search's output must come from the caller, so its call must precede it."""
        if not isinstance(items, list):
            return []
        problems, calls = [], {}
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            if item.get("type") == "tool_search_call":
                calls[item.get("call_id")] = item.get("execution")
            elif item.get("type") == "tool_search_output":
                call = item.get("call_id")
                if call in calls:
                    if item.get("execution") != calls[call]:
                        problems.append(
                            f"{where}.{i}.execution: {item.get('execution')!r} answers a {calls[call]!r} search call (protocol)"
                        )
                elif not previous and item.get("execution") != "server":
                    problems.append(
                        f"{where}.{i}.call_id: {call!r} answers no earlier tool_search_call (protocol)"
                    )
        return problems

    def response_body(self, body, where):
        problems = self.body(body, where)
        if isinstance(body, dict):
            problems.extend(self._search_pairs(body.get("output"), f"{where}.output"))
            usage = body.get("usage")
            if isinstance(usage, dict) and all(
                isinstance(usage.get(k), int) for k in ("input_tokens", "output_tokens", "total_tokens")
            ):
                if usage["total_tokens"] != usage["input_tokens"] + usage["output_tokens"]:
                    problems.append(
                        f"{where}.usage.total_tokens: {usage['total_tokens']} is not input + output (protocol)"
                    )
        return problems

    def error(self, body, where):
        if not isinstance(body, dict) or set(body) != {"error"}:
            return [f'{where}: an error body is exactly {{"error": ...}} (protocol)']
        return self.error_body(body["error"], f"{where}.error")

    def stream(self, text, where):
        frames, problems = parse_sse(text, where)
        open_items, final = {}, None
        for index, event, payload in frames:
            at = f"{where} event {index}"
            kind = payload.get("type") if isinstance(payload, dict) else None
            if event != kind:
                problems.append(f"{at}: `event: {event}` but data type {kind!r} (protocol)")
            if not isinstance(payload, dict) or payload.get("sequence_number") != index:
                got = payload.get("sequence_number") if isinstance(payload, dict) else None
                problems.append(f"{at}.sequence_number: {got!r}, expected {index} (protocol)")
            check = self.events.get(kind)
            if check is None:
                problems.append(
                    f"{at}.type: {kind!r} is not a Responses stream event (sdk: ResponseStreamEvent)"
                )
                continue
            problems.extend(check(payload, f"{at} ({kind})"))
            if index == 0 and kind != "response.created":
                problems.append(
                    f"{at}.type: the first event is {kind!r}, expected 'response.created' (protocol)"
                )
            if kind == "response.output_item.added":
                open_items[payload.get("output_index")] = obj(payload.get("item")).get("type")
            elif kind == "response.output_item.done":
                if payload.get("output_index") not in open_items:
                    problems.append(
                        f"{at}.output_index: item {payload.get('output_index')} was never added (protocol)"
                    )
                open_items.pop(payload.get("output_index"), None)
            if kind in ("response.completed", "response.failed", "response.incomplete"):
                final = (index, payload.get("response"))
        if frames:
            last = frames[-1][0]
            if final is None or final[0] != last:
                problems.append(
                    f"{where}: the stream does not end with response.completed/failed/incomplete (protocol)"
                )
            elif isinstance(final[1], dict):
                problems.extend(self._search_pairs(final[1].get("output"), f"{where} final.output"))
            if open_items:
                problems.append(f"{where}: output items {sorted(open_items)} added but never done (protocol)")
        return problems


# ---------------------------------------------------------------------------------------------
# Anthropic Messages
# ---------------------------------------------------------------------------------------------

SEARCH_TOOL_TYPES = {
    "tool_search_tool_bm25_20251119",
    "tool_search_tool_bm25",
    "tool_search_tool_regex_20251119",
    "tool_search_tool_regex",
}
SEARCH_TOOL_NAMES = {"tool_search_tool_bm25", "tool_search_tool_regex"}


class AnthropicMessages(SdkChecks):
    name = "anthropic-messages"
    MINIMAL_REQUEST = {
        "model": "mock-anthropic/qa",
        "max_tokens": 1,
        "messages": [{"role": "user", "content": "x"}],
    }
    _CANNED_MESSAGE = {
        "id": "msg_canned",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    CANNED = {
        "json": (
            "json",
            dict(_CANNED_MESSAGE, content=[{"type": "text", "text": "ok"}], stop_reason="end_turn"),
        ),
        "sse": (
            "sse",
            sse_text(
                [
                    {"type": "message_start", "message": _CANNED_MESSAGE},
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": "end_turn"},
                        "usage": {"output_tokens": 1},
                    },
                    {"type": "message_stop"},
                ]
            ),
        ),
    }

    @staticmethod
    def make_client(http):
        import anthropic

        return anthropic.Anthropic(
            api_key="qa-key", base_url="http://127.0.0.1:9", http_client=http, max_retries=0
        )

    @staticmethod
    def create(client, body):
        return client.messages.create(**body)

    @staticmethod
    def accumulate(client):
        messages = [{"role": "user", "content": "x"}]
        with client.messages.stream(model="mock-anthropic/qa", max_tokens=1, messages=messages) as stream:
            return stream.get_final_message().to_dict()

    def __init__(self):
        import anthropic
        from anthropic.types import Message, RawMessageStreamEvent
        from anthropic.types import message_create_params as params
        from anthropic.types.shared import ErrorResponse

        super().__init__(
            f"anthropic {anthropic.__version__}",
            params.MessageCreateParamsNonStreaming,
            params.MessageCreateParamsStreaming,
            Message,
            ErrorResponse,
            RawMessageStreamEvent,
        )

    def request(self, body, where):
        if not isinstance(body, dict):
            return [f"{where}: a request body is a JSON object (protocol)"]
        problems = self.requests[body.get("stream") is True](body, where)
        tools = (
            [t for t in body.get("tools") or [] if isinstance(t, dict)]
            if isinstance(body.get("tools"), list)
            else []
        )
        searches = [i for i, t in enumerate(tools) if t.get("type") in SEARCH_TOOL_TYPES]
        deferred = [i for i, t in enumerate(tools) if t.get("defer_loading") is True]
        for i in searches:
            if tools[i].get("defer_loading") is True:
                problems.append(
                    f"{where}.tools.{i}.defer_loading: the tool search tool itself cannot be deferred (protocol)"
                )
        # A client-side search (the guide's custom tool search) declares its own search tool, not
        # deferred; before its first result the request holds no tool_reference yet.
        client_search = any(
            t.get("type") in (None, "custom")
            and t.get("defer_loading") is not True
            and "search" in str(t.get("name", ""))
            for t in tools
        )
        if deferred and not searches and not client_search and not self._client_references(body):
            problems.append(
                f"{where}.tools.{deferred[0]}.defer_loading: deferred tools need a tool search tool, "
                f"a client search tool or client tool_reference results (protocol)"
            )
        if deferred and len(deferred) == len(tools):
            problems.append(f"{where}.tools: every tool is deferred; at least one must be loaded (protocol)")
        names = {t.get("name") for t in tools}
        messages = body.get("messages") if isinstance(body.get("messages"), list) else []
        for m, message in enumerate(messages):
            content = message.get("content") if isinstance(message, dict) else None
            if not isinstance(content, list):
                continue
            problems.extend(self._blocks(content, f"{where}.messages.{m}.content", names))
        return problems

    @staticmethod
    def _client_references(body):
        for message in body.get("messages") or []:
            for block in (message.get("content") if isinstance(message, dict) else None) or []:
                if (
                    isinstance(block, dict)
                    and block.get("type") == "tool_result"
                    and isinstance(block.get("content"), list)
                ):
                    if any(
                        isinstance(c, dict) and c.get("type") == "tool_reference" for c in block["content"]
                    ):
                        return True
        return False

    @staticmethod
    def _blocks(content, where, names=None):
        """A tool_search_tool_result answers an earlier server_tool_use of a search tool, and each
        tool reference (in a search result, or a client tool_result) names a tool in `tools`."""
        problems, searches = [], set()
        for b, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            at = f"{where}.{b}"
            if block.get("type") == "server_tool_use" and block.get("name") in SEARCH_TOOL_NAMES:
                searches.add(block.get("id"))
            references = []
            if block.get("type") == "tool_search_tool_result":
                if block.get("tool_use_id") not in searches:
                    problems.append(
                        f"{at}.tool_use_id: {block.get('tool_use_id')!r} answers no earlier search server_tool_use (protocol)"
                    )
                inner = block.get("content")
                if isinstance(inner, dict) and inner.get("type") == "tool_search_tool_search_result":
                    references = [
                        (f"{at}.content.tool_references.{r}", ref)
                        for r, ref in enumerate(inner.get("tool_references") or [])
                    ]
            elif block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                references = [
                    (f"{at}.content.{r}", ref)
                    for r, ref in enumerate(block["content"])
                    if isinstance(ref, dict) and ref.get("type") == "tool_reference"
                ]
            if names is not None:
                for path, ref in references:
                    if isinstance(ref, dict) and ref.get("tool_name") not in names:
                        problems.append(
                            f"{path}.tool_name: {ref.get('tool_name')!r} is not a tool of the request (protocol)"
                        )
        return problems

    def _message_rules(self, body, where):
        problems = []
        content = body.get("content") if isinstance(body.get("content"), list) else []
        problems.extend(self._blocks(content, f"{where}.content"))
        uses = any(isinstance(b, dict) and b.get("type") == "tool_use" for b in content)
        stop = body.get("stop_reason")
        if uses and stop != "tool_use":
            problems.append(
                f"{where}.stop_reason: {stop!r} with a tool_use block, expected 'tool_use' (protocol)"
            )
        if not uses and stop == "tool_use":
            problems.append(f"{where}.stop_reason: 'tool_use' without a tool_use block (protocol)")
        return problems

    def response_body(self, body, where):
        problems = self.body(body, where)
        if isinstance(body, dict):
            if body.get("stop_reason") is None:
                problems.append(f"{where}.stop_reason: null in a complete message (protocol)")
            problems.extend(self._message_rules(body, where))
        return problems

    def error(self, body, where):
        return self.error_body(body, where)

    def stream(self, text, where):
        """message_start, then per block content_block_start / deltas / content_block_stop with
        indexes 0, 1, ... in order, then message_delta and message_stop; `ping` anywhere after the
        start. The SDK drops a frame without an `event:` line, so every frame needs one."""
        frames, problems = parse_sse(text, where)
        state, blocks, current, partial = "start", [], None, {}
        for index, event, payload in frames:
            at = f"{where} event {index}"
            kind = payload.get("type") if isinstance(payload, dict) else None
            if event != kind:
                problems.append(f"{at}: `event: {event}` but data type {kind!r} (protocol)")
            if kind == "ping":
                if payload != {"type": "ping"} or state == "start":
                    problems.append(
                        f'{at}: a ping is exactly {{"type":"ping"}}, after message_start (protocol)'
                    )
                continue
            check = self.events.get(kind)
            if check is None:
                problems.append(
                    f"{at}.type: {kind!r} is not a Messages stream event (sdk: RawMessageStreamEvent)"
                )
                continue
            problems.extend(check(payload, f"{at} ({kind})"))
            expected = {
                "start": {"message_start"},
                "blocks": {"content_block_start", "message_delta"},
                "block": {"content_block_delta", "content_block_stop"},
                "delta": {"message_stop"},
                "stop": set(),
            }[state]
            if kind not in expected:
                problems.append(
                    f"{at}.type: {kind!r} after {state!r}; expected one of {sorted(expected)} (protocol)"
                )
                continue
            if kind == "message_start":
                message = obj(payload.get("message"))
                if message.get("content") != [] or message.get("stop_reason") is not None:
                    problems.append(
                        f"{at}.message: message_start carries empty content and a null stop_reason (protocol)"
                    )
                state = "blocks"
            elif kind == "content_block_start":
                if payload.get("index") != len(blocks):
                    problems.append(
                        f"{at}.index: {payload.get('index')!r}, expected {len(blocks)} (protocol)"
                    )
                block = dict(obj(payload.get("content_block")))
                blocks.append(block)
                current = block.get("type")
                partial = {"json": "", "text": block.get("text", "")}
                if current in ("tool_use", "server_tool_use") and block.get("input") != {}:
                    problems.append(
                        f"{at}.content_block.input: a streamed {current} starts with input {{}} (protocol)"
                    )
                state = "block"
            elif kind == "content_block_delta":
                delta = obj(payload.get("delta"))
                if payload.get("index") != len(blocks) - 1:
                    problems.append(
                        f"{at}.index: {payload.get('index')!r} is not the open block {len(blocks) - 1} (protocol)"
                    )
                allowed = {
                    "text": "text_delta",
                    "tool_use": "input_json_delta",
                    "server_tool_use": "input_json_delta",
                    "thinking": "thinking_delta",
                }.get(current)
                if delta.get("type") != allowed and not (
                    current == "thinking" and delta.get("type") == "signature_delta"
                ):
                    problems.append(
                        f"{at}.delta.type: {delta.get('type')!r} in a {current!r} block (protocol)"
                    )
                partial["json"] += delta.get("partial_json", "")
                partial["text"] += delta.get("text", "")
            elif kind == "content_block_stop":
                if payload.get("index") != len(blocks) - 1:
                    problems.append(
                        f"{at}.index: {payload.get('index')!r} is not the open block {len(blocks) - 1} (protocol)"
                    )
                block = blocks[-1]
                if current in ("tool_use", "server_tool_use"):
                    try:
                        block["input"] = json.loads(partial["json"]) if partial["json"] else {}
                    except ValueError as error:
                        problems.append(
                            f"{at}: the block's input_json_delta parts are not JSON ({error}) (protocol)"
                        )
                if current == "text":
                    block["text"] = partial["text"]
                state = "blocks"
            elif kind == "message_delta":
                stop = obj(payload.get("delta")).get("stop_reason")
                problems.extend(
                    self._message_rules({"content": blocks, "stop_reason": stop}, f"{where} message")
                )
                if stop is None:
                    problems.append(f"{at}.delta.stop_reason: null in message_delta (protocol)")
                state = "delta"
            elif kind == "message_stop":
                state = "stop"
        if frames and state != "stop":
            problems.append(f"{where}: the stream ends in state {state!r}, not after message_stop (protocol)")
        return problems


# ---------------------------------------------------------------------------------------------
# Documents
# ---------------------------------------------------------------------------------------------


def load(sources):
    """(name, envelope) per document; a source is a file, a directory of *.json, or `-` (stdin,
    a JSON array of envelopes)."""
    documents = []
    for source in sources:
        if source == "-":
            for i, envelope in enumerate(json.load(sys.stdin)):
                documents.append((f"stdin[{i}]", envelope))
            continue
        path = pathlib.Path(source)
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        if path.is_dir() and not files:
            raise SystemExit(f"sdk_native_conformance: {path}: no *.json documents")
        for file in files:
            try:
                documents.append((file.name, json.loads(file.read_text())))
            except (OSError, ValueError) as error:
                documents.append((file.name, {"unreadable": str(error)}))
    return documents


def check(checker, name, envelope):
    """The problems of one document (its envelope first)."""
    if "unreadable" in envelope:
        return [f"{name}: cannot read: {envelope['unreadable']}"]
    allowed = {"protocol", "kind", "body", "sse", "expect_invalid", "note"}
    problems = [f"{name}.{key}: not an envelope field" for key in envelope if key not in allowed]
    kind = envelope.get("kind")
    if kind not in KINDS:
        return problems + [f"{name}.kind: {kind!r} is not one of {list(KINDS)}"]
    if kind == "stream":
        if not isinstance(envelope.get("sse"), str) or "body" in envelope:
            return problems + [f"{name}: a stream document has a string `sse` and no `body`"]
        # The SDK's own stream helper runs on a stream the types accept (on a broken one its
        # failure would only repeat what the checks above say).
        found = checker.stream(envelope["sse"], name)
        return problems + (found or checker.client_stream(envelope["sse"], name))
    if "body" not in envelope or "sse" in envelope:
        return problems + [f"{name}: a {kind} document has a `body` and no `sse`"]
    body = envelope["body"]
    if kind == "request":
        found = checker.request(body, name)
        return problems + (found or checker.client_request(body, name))
    if kind == "response":
        return problems + checker.response_body(body, name)
    return problems + checker.error(body, name)


def prove_client_request(checker):
    """The SDK-client request check must be able to fail: a body with a key create() does not
    take (called directly: the strict type check would name the key first) and the minimal body
    with nothing wrong."""
    bad = checker.client_request(dict(checker.MINIMAL_REQUEST, tool_choise="auto"), "self-test")
    good = checker.client_request(checker.MINIMAL_REQUEST, "self-test")
    failures = []
    if not any("create() fails" in p and "tool_choise" in p for p in bad):
        failures.append(f"the SDK-client check let a key create() does not take pass: {bad}")
    if good:
        failures.append(f"the SDK-client check refused the minimal request: {good}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--protocol", required=True, choices=PROTOCOLS)
    parser.add_argument("--self-test", action="store_true", help="documents are fixtures with expect_invalid")
    parser.add_argument("documents", nargs="+", help="files, directories of *.json, or - for stdin")
    args = parser.parse_args()
    checker = OpenAIResponses() if args.protocol == "openai-responses" else AnthropicMessages()
    documents = load(args.documents)
    invalid, failures, checked, other, kinds = [], [], 0, 0, {}
    for name, envelope in documents:
        if envelope.get("protocol") not in PROTOCOLS:
            invalid.append(f"{name}.protocol: {envelope.get('protocol')!r} is not one of {list(PROTOCOLS)}")
            continue
        if envelope["protocol"] != args.protocol:
            other += 1
            continue
        checked += 1
        kinds[envelope.get("kind")] = kinds.get(envelope.get("kind"), 0) + 1
        try:
            problems = check(checker, name, envelope)
        except Exception as error:  # a checker bug must not hide the other documents' results
            problems = [f"{name}: the checker crashed: {type(error).__name__}: {error}"]
        wanted = envelope.get("expect_invalid") if args.self_test else None
        if wanted is None:
            invalid.extend(problems)
        elif not problems:
            failures.append(f"{name}: expected invalid ({wanted}) but it passed")
        else:
            for want in wanted:
                if not any(want in p for p in problems):
                    failures.append(f"{name}: no problem mentions {want!r}; got {problems}")
    if checked == 0:
        failures.append(f"no {args.protocol} document was checked")
    if args.self_test:
        failures.extend(prove_client_request(checker))
    summary = {
        "protocol": args.protocol,
        "sdk": checker.version,
        "pydantic": pydantic.VERSION,
        "documents": checked,
        "other_protocol": other,
        "kinds": kinds,
        "invalid": invalid,
        "failures": failures,
    }
    print(json.dumps(summary))
    sys.exit(1 if invalid or failures else 0)


if __name__ == "__main__":
    main()
