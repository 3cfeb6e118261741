#!/usr/bin/env bash
# Soak: N one-turn sessions (default 2000) through one `toolsearch-qa gateway` process against
# one `toolsearch-qa provider` process, C at a time (default 32), and the gateway's resident
# memory: idle before the run, peak during it (VmHWM), and after it (5 s after the last turn).
# The figures go to BENCHMARKS.md; nothing here asserts a time.
#
# usage: scripts/soak-gateway.sh [BINARY] [SESSIONS] [CONCURRENCY]
set -euo pipefail
bin=${1:-target/release/toolsearch-qa}
sessions=${2:-2000}
concurrency=${3:-32}
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The first line a server prints, once it prints it.
first_line() {
    local file=$1
    for _ in $(seq 200); do
        [ -s "$file" ] && { head -n1 "$file"; return; }
        sleep 0.1
    done
    echo "no listening line in $file" >&2
    exit 1
}
rss_kb() { awk -v f="$2" '$1 == f":" { print $2 }' "/proc/$1/status"; }

"$bin" provider > "$work/provider.out" &
pids+=($!)
provider_pid=$!
provider_url=$(first_line "$work/provider.out" | awk '{ print $4 }')
cat > "$work/gateway.json5" <<EOF
{ models: { providers: { mock: { baseUrl: "$provider_url" } } },
  agents: { defaults: { model: { primary: "mock/qa" } }, list: [{ id: "qa" }] },
  tools: { toolSearch: { mode: "tools" } },
  catalog: { fakePlugin: { id: "tool-search-e2e-fixture", size: 36 } } }
EOF
"$bin" gateway --config "$work/gateway.json5" --state-dir "$work/state" > "$work/gateway.out" &
pids+=($!)
gateway_pid=$!
gateway_url=$(first_line "$work/gateway.out" | awk '{ print $3 }')

turn() {
    local i=$1 n
    n=$(printf '%02d' $(( i % 36 + 1 )))
    curl -s -o "$work/answer-$i" -w '%{http_code}\n' "$gateway_url/v1/responses" \
        -H 'content-type: application/json' -H 'x-openclaw-agent: qa' \
        -H "x-openclaw-session-key: soak-$i" \
        -d "{\"model\":\"openclaw/qa\",\"input\":\"tool search qa check target=fake_plugin_tool_$n\"}"
}
export -f turn
export gateway_url work

turn 0 > /dev/null
rm -f "$work/answer-0"
sleep 1
idle=$(rss_kb "$gateway_pid" VmRSS)
started=$(date +%s.%N)
seq 1 "$sessions" | xargs -P "$concurrency" -I{} bash -c 'turn {}' > "$work/codes"
ended=$(date +%s.%N)
sleep 5
after=$(rss_kb "$gateway_pid" VmRSS)
peak=$(rss_kb "$gateway_pid" VmHWM)
provider_rss=$(rss_kb "$provider_pid" VmRSS)
ok=$(grep -c '^200$' "$work/codes" || true)
others=$(grep -v '^200$' "$work/codes" | sort | uniq -c | awk '{ printf " %s x HTTP %s", $1, $2 }' || true)
logs=$(find "$work/state" -name '*.jsonl' | wc -l)
echo "sessions $sessions (concurrency $concurrency): $ok answered 200${others:+ (others:$others)}, $logs session logs, $(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.1f", b - a }') s"
echo "gateway RSS: idle $((idle / 1024)) MB, peak $((peak / 1024)) MB, after $((after / 1024)) MB ($(( (after - idle) * 100 / idle ))% above idle)"
grep -L '"status":"completed"' "$work"/answer-* 2>/dev/null | head -3 | while read -r f; do echo "not 200: $(head -c 300 "$f")"; done
echo "provider RSS after: $((provider_rss / 1024)) MB (its journal keeps every request body)"
