"""Drives the mock provider and the embedded gateway through the official OpenAI Python SDK and
validates every body they send back against the SDK's own models, strictly.

Run by tests/it/sdk_conformance.rs (which starts the servers) with the interpreter that
scripts/install-openai-sdk.sh installs:

    python sdk_conformance.py --provider URL --gateway LANE=URL [--gateway LANE=URL ...]

Every HTTP response the SDK receives is captured at the transport (an httpx response hook) and
checked after the flows ran:
  - a JSON response object: `Response.model_validate(body, strict=True)`;
  - an event stream: each `data:` event by the class its `type` names (the members of
    `ResponseStreamEvent`), strictly, with `sequence_number` running 0..n-1 and each frame's
    `event:` line equal to its `type`;
  - an error (4xx/5xx): `{"error": {...}}` with exactly `message`, `type`, `param`, `code`,
    validated as the SDK's `ErrorObject`;
  - a model list: each entry as the SDK's `Model`.
Besides the SDK's own checks, a key the model does not declare is an error too (the SDK's models
accept unknown keys silently; an emitter that misspells a field should not pass).
Then the flows' own assertions (the SDK's parsed objects and its stream helper) must hold.

Prints one JSON summary line; exits 1 when any body is invalid or any flow assertion failed, each
failure with its field path.
"""

import argparse
import json
import sys
import typing
import uuid

import httpx2 as httpx  # the HTTP client the pinned SDK is built on
import openai
import pydantic
from openai.types import Model
from openai.types.responses import Response, ResponseStreamEvent
from openai.types.shared import ErrorObject

PLAIN_TEXT = "Mock provider reply: no tool search directive found."
CLIENT_TOOL = {
    "type": "function",
    "name": "pick_file",
    "description": "Client tool pick_file: the caller runs it and sends the result back.",
    "parameters": {
        "type": "object",
        "properties": {"marker": {"type": "string"}},
        "required": ["marker"],
        "additionalProperties": False,
    },
}
FAKE_TOOL = {
    "type": "function",
    "name": "fake_plugin_tool_17",
    "description": "A fake plugin tool.",
    "parameters": {"type": "object", "properties": {"marker": {"type": "string"}}},
}
CLIENT_RESULT = 'FAKE_PLUGIN_OK pick_file {"marker":"normal"}'


def event_classes():
    """`type` value -> event class, from the SDK's ResponseStreamEvent union."""
    union = typing.get_args(ResponseStreamEvent)[0]
    classes = {}
    for cls in typing.get_args(union):
        (kind,) = typing.get_args(cls.model_fields["type"].annotation)
        classes[kind] = cls
    return classes


EVENTS = event_classes()


def extras(value, path):
    """Paths of keys a validated model did not declare (recursively)."""
    found = []
    if isinstance(value, pydantic.BaseModel):
        for key in (value.model_extra or {}):
            found.append(f"{path}.{key}: not a field of {type(value).__name__}")
        for name in type(value).model_fields:
            found.extend(extras(getattr(value, name), f"{path}.{name}"))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found.extend(extras(item, f"{path}[{i}]"))
    elif isinstance(value, dict):
        for key, item in value.items():
            found.extend(extras(item, f"{path}.{key}"))
    return found


def strict(cls, data, where):
    """Validates `data` as `cls` strictly; returns the problems, each with its field path."""
    try:
        model = cls.model_validate(data, strict=True)
    except pydantic.ValidationError as error:
        return [
            f"{where}.{'.'.join(str(p) for p in e['loc'])}: {e['msg']} ({cls.__name__})"
            for e in error.errors()
        ]
    return extras(model, where)


class Capture:
    """Every response the SDK receives: (method, url, status, content type, body text)."""

    def __init__(self):
        self.seen = []

    def hook(self, response):
        response.read()
        request = response.request
        self.seen.append(
            (
                request.method,
                str(request.url),
                response.status_code,
                response.headers.get("content-type", ""),
                response.text,
            )
        )


def check_error(body, where):
    try:
        data = json.loads(body)
    except ValueError as error:
        return [f"{where}: error body is not JSON ({error}): {body[:200]!r}"]
    problems = []
    if not isinstance(data, dict) or set(data) != {"error"}:
        return [f"{where}: error body must be exactly {{\"error\": …}}, got keys {sorted(data) if isinstance(data, dict) else type(data).__name__}"]
    keys = set(data["error"]) if isinstance(data["error"], dict) else set()
    if keys != {"message", "type", "param", "code"}:
        problems.append(f"{where}.error: keys must be message, type, param, code; got {sorted(keys)}")
    problems.extend(strict(ErrorObject, data["error"], f"{where}.error"))
    return problems


def check_stream(body, where):
    problems = []
    frames = [f for f in body.split("\n\n") if f.strip()]
    for index, frame in enumerate(frames):
        lines = frame.split("\n")
        event = next((l[len("event: "):] for l in lines if l.startswith("event: ")), None)
        data = "\n".join(l[len("data: "):] for l in lines if l.startswith("data: "))
        at = f"{where} event {index}"
        try:
            payload = json.loads(data)
        except ValueError as error:
            problems.append(f"{at}: data is not JSON ({error})")
            continue
        kind = payload.get("type")
        if event != kind:
            problems.append(f"{at}: `event: {event}` but type {kind!r}")
        if payload.get("sequence_number") != index:
            problems.append(f"{at}.sequence_number: {payload.get('sequence_number')!r}, expected {index}")
        cls = EVENTS.get(kind)
        if cls is None:
            problems.append(f"{at}.type: {kind!r} is not a Responses stream event")
            continue
        problems.extend(strict(cls, payload, f"{at} ({kind})"))
    if not frames:
        problems.append(f"{where}: empty event stream")
    return problems


def check_the_checker(capture):
    """The validation must be able to fail: a captured response object without `created_at`, one
    with a misspelt key, and a text delta without `logprobs` must be rejected with those paths."""
    body = next(
        json.loads(b) for (_, _, status, ctype, b) in capture.seen
        if status < 400 and ctype.startswith("application/json") and '"object":"response"' in b.replace(" ", "")
        and '"output_text"' in b
    )
    misspelt = dict(body, tool_choise="auto")
    del body["created_at"]
    problems = strict(Response, body, "broken") + strict(Response, misspelt, "broken")
    stream_problems = check_stream(
        'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"m",'
        '"output_index":0,"content_index":0,"delta":"x","sequence_number":0}\n\n',
        "broken stream",
    )
    wanted = ["broken.created_at: Field required", "broken.tool_choise: not a field"]
    missing = [w for w in wanted if not any(p.startswith(w) for p in problems)]
    if not any("logprobs" in p for p in stream_problems):
        missing.append("broken stream logprobs")
    return [f"the strict check let a broken body pass: {m} ({problems} {stream_problems})" for m in missing]


def check_capture(capture):
    problems, kinds = [], {}
    for number, (method, url, status, content_type, body) in enumerate(capture.seen):
        where = f"#{number} {method} {url} -> {status}"
        if status >= 400:
            kind = "error"
            problems.extend(check_error(body, where))
        elif content_type.startswith("text/event-stream"):
            kind = "stream"
            problems.extend(check_stream(body, where))
        elif url.endswith("/models"):
            kind = "models"
            for i, entry in enumerate(json.loads(body).get("data", [])):
                problems.extend(strict(Model, entry, f"{where}.data[{i}]"))
        else:
            kind = "response"
            problems.extend(strict(Response, json.loads(body), where))
        kinds[kind] = kinds.get(kind, 0) + 1
    return problems, kinds


class Flows:
    def __init__(self, capture):
        self.capture = capture
        self.failures = []
        self.checks = 0

    def expect(self, condition, message):
        self.checks += 1
        if not condition:
            self.failures.append(message)

    def client(self, base_url, session=None):
        headers = {"x-openclaw-session-key": session} if session else None
        http = openai.DefaultHttpxClient(event_hooks={"response": [self.capture.hook]}, timeout=60)
        return openai.OpenAI(
            base_url=base_url, api_key="qa-key", max_retries=0, http_client=http, default_headers=headers
        )

    def expect_status(self, call, status, where):
        try:
            call()
        except openai.APIStatusError as error:
            self.expect(error.status_code == status, f"{where}: HTTP {error.status_code}, expected {status}")
            return error
        self.expect(False, f"{where}: succeeded, expected HTTP {status}")
        return None

    def stream_text(self, stream, where):
        """Consumes an SDK event stream; returns the final response, checking the numbering."""
        numbers, final = [], None
        for event in stream:
            numbers.append(event.sequence_number)
            if event.type == "response.completed":
                final = event.response
        self.expect(numbers == list(range(len(numbers))), f"{where}: sequence numbers {numbers}")
        self.expect(final is not None, f"{where}: no response.completed")
        return final

    def provider(self, url):
        client = self.client(url)
        models = client.models.list()
        self.expect([m.id for m in models.data] == ["mock-openai/qa"], f"provider models: {models.data}")
        text = client.responses.create(model="m", input="hello")
        self.expect(text.output_text == PLAIN_TEXT, f"provider text: {text.output_text!r}")
        self.expect(text.usage.input_tokens > 0 and text.usage.output_tokens > 0, f"provider usage: {text.usage}")
        prompt = "tool search qa check target=fake_plugin_tool_17"
        call = client.responses.create(model="m", input=prompt, tools=[FAKE_TOOL], tool_choice="auto")
        item = call.output[0]
        self.expect(item.type == "function_call" and item.name == "fake_plugin_tool_17", f"provider call: {item}")
        self.expect(call.tools[0].name == "fake_plugin_tool_17", f"provider echo tools: {call.tools}")
        done = client.responses.create(
            model="m",
            input=[
                {"role": "user", "content": prompt},
                {"type": "function_call", "call_id": item.call_id, "name": item.name, "arguments": item.arguments},
                {"type": "function_call_output", "call_id": item.call_id, "output": "FAKE_PLUGIN_OK fake_plugin_tool_17"},
            ],
            tools=[FAKE_TOOL],
        )
        self.expect(done.output_text == "FAKE_PLUGIN_OK fake_plugin_tool_17", f"provider answer: {done.output_text!r}")
        final = self.stream_text(client.responses.create(model="m", input="hello", stream=True), "provider stream")
        self.expect(final is not None and final.output_text == PLAIN_TEXT, "provider stream text")
        with client.responses.stream(model="m", input=prompt, tools=[FAKE_TOOL]) as stream:
            for _ in stream:
                pass
            streamed = stream.get_final_response()
        self.expect(streamed.output[0].type == "function_call", f"provider stream helper: {streamed.output}")
        self.expect_status(lambda: client.responses.create(model="m", input=5), 400, "provider bad input")
        self.expect_status(lambda: client.get("/nope", cast_to=httpx.Response), 404, "provider unknown route")
        self.expect_status(lambda: client.post("/models", cast_to=httpx.Response, body={}), 405, "provider wrong method")

    def hand_off(self, client, lane, stream):
        prompt = "tool search qa check target=pick_file"
        if stream:
            first = self.stream_text(
                client.responses.create(model="openclaw/qa", input=prompt, tools=[CLIENT_TOOL], stream=True),
                f"{lane} hand-off stream",
            )
        else:
            first = client.responses.create(model="openclaw/qa", input=prompt, tools=[CLIENT_TOOL])
        calls = [o for o in first.output if o.type == "function_call"]
        self.expect(len(calls) == 1 and calls[0].name == "pick_file", f"{lane}: hand-off output {first.output}")
        self.expect(first.tools and first.tools[0].name == "pick_file", f"{lane}: echoed tools {first.tools}")
        self.expect(first.usage.input_tokens > 0, f"{lane}: usage {first.usage}")
        return prompt, first, calls[0] if calls else None

    def gateway(self, lane, url):
        # Full input history, JSON.
        client = self.client(url, f"sdk-{lane}-{uuid.uuid4().hex[:8]}")
        prompt, first, call = self.hand_off(client, lane, stream=False)
        if call is not None:
            done = client.responses.create(
                model="openclaw/qa",
                input=[
                    {"role": "user", "content": prompt},
                    {"type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments},
                    {"type": "function_call_output", "call_id": call.call_id, "output": CLIENT_RESULT},
                ],
                tools=[CLIENT_TOOL],
            )
            self.expect(done.output_text == "FAKE_PLUGIN_OK pick_file", f"{lane} full history: {done.output_text!r}")
            self.expect(done.id != first.id, f"{lane}: the continuation reused id {done.id}")
        # previous_response_id, streaming, through the SDK's stream helper.
        client = self.client(url, f"sdk-{lane}-{uuid.uuid4().hex[:8]}")
        _, first, call = self.hand_off(client, lane, stream=True)
        if call is not None:
            with client.responses.stream(
                model="openclaw/qa",
                previous_response_id=first.id,
                input=[{"type": "function_call_output", "call_id": call.call_id, "output": CLIENT_RESULT}],
                tools=[CLIENT_TOOL],
            ) as stream:
                for _ in stream:
                    pass
                done = stream.get_final_response()
            self.expect(done.output_text == "FAKE_PLUGIN_OK pick_file", f"{lane} previous_response_id: {done.output_text!r}")
            self.expect(done.previous_response_id == first.id, f"{lane}: previous_response_id echo {done.previous_response_id}")
            self.expect_status(
                lambda: client.responses.create(
                    model="openclaw/qa",
                    input=[{"type": "function_call_output", "call_id": call.call_id, "output": "again"}],
                ),
                400,
                f"{lane} answered call again",
            )
        # A plain text answer, and the gateway running a tool itself.
        text = self.client(url).responses.create(model="openclaw/qa", input="hello")
        self.expect(text.output_text == PLAIN_TEXT, f"{lane} text: {text.output_text!r}")
        ran = self.client(url, f"sdk-{lane}-run").responses.create(
            model="openclaw/qa", input="tool search qa check target=fake_plugin_tool_17"
        )
        self.expect(ran.output_text == "FAKE_PLUGIN_OK fake_plugin_tool_17", f"{lane} gateway tool: {ran.output_text!r}")

    def gateway_errors(self, url):
        client = self.client(url, "sdk-errors")
        self.expect_status(lambda: client.responses.create(model="m", input=[]), 400, "gateway empty input")
        self.expect_status(
            lambda: client.responses.create(model="m", input="hi", tool_choice="sometimes"), 400, "gateway tool_choice"
        )
        self.expect_status(
            lambda: client.responses.create(
                model="m", input=[{"type": "function_call_output", "call_id": "call_x", "output": "x"}]
            ),
            400,
            "gateway output for no pending call",
        )
        self.expect_status(
            lambda: client.responses.create(model="m", input="hi", previous_response_id="resp_0000000000000000"),
            400,
            "gateway unknown previous_response_id",
        )
        self.expect_status(
            lambda: client.responses.create(model="m", input="hi", extra_headers={"x-openclaw-agent": "nobody"}),
            404,
            "gateway unknown agent",
        )
        self.expect_status(lambda: client.get("/nope", cast_to=httpx.Response), 404, "gateway unknown route")
        self.expect_status(lambda: client.get("/responses", cast_to=httpx.Response), 405, "gateway wrong method")
        self.expect_status(
            lambda: client.responses.create(model="m", input="x" * (5 * 1024 * 1024)), 413, "gateway body too large"
        )
        self.expect_status(
            lambda: client.responses.create(model="m", input="hi", extra_headers={"x-big": "x" * 40000}),
            431,
            "gateway head too large",
        )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--provider", required=True)
    parser.add_argument("--gateway", action="append", default=[], help="LANE=URL")
    args = parser.parse_args()
    capture = Capture()
    flows = Flows(capture)
    try:
        flows.provider(args.provider)
        gateways = [g.split("=", 1) for g in args.gateway]
        for lane, url in gateways:
            flows.gateway(lane, url)
        if gateways:
            flows.gateway_errors(gateways[0][1])
    except Exception as error:  # a flow that crashed is a failure, with its cause
        flows.failures.append(f"flow crashed: {type(error).__name__}: {error}")
    invalid, kinds = check_capture(capture)
    try:
        flows.failures.extend(check_the_checker(capture))
    except StopIteration:
        flows.failures.append("no response object with text was captured to test the checker on")
    summary = {
        "openai": openai.__version__,
        "pydantic": pydantic.VERSION,
        "bodies": len(capture.seen),
        "kinds": kinds,
        "checks": flows.checks,
        "invalid": invalid,
        "failures": flows.failures,
    }
    print(json.dumps(summary))
    sys.exit(1 if invalid or flows.failures else 0)


if __name__ == "__main__":
    main()
