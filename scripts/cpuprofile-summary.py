#!/usr/bin/env python3
"""Summarise the .cpuprofile files `node --cpu-prof` writes for a gateway (one per thread and
per process), so a start can be read without a browser.

  cpuprofile-summary.py [--top N] FILE...           self and total time by function and by file
  cpuprofile-summary.py --phases GATEWAY_LOG DIR    busy CPU per start phase, per thread kind

Phases are cut at the gateway log's `loading configuration`, `http server listening` and the
first `ended with stopReason` (the first turn answered); the log's last line is taken as the
moment the main thread's profile ended, which maps log time onto profile time. Idle samples
are left out of every figure: on a shared machine busy CPU moves less than wall time does.
"""
import collections
import datetime
import glob
import json
import os
import re
import sys


def short(url):
    """A frame's file: relative to the openclaw package, `node:` internals, or `(native)`."""
    if not url:
        return "(native)"
    path = url.replace("file://", "")
    for marker in ("node_modules/openclaw/", "node_modules/"):
        at = path.find(marker)
        if at >= 0:
            return path[at + (len(marker) if marker.endswith("openclaw/") else 0):]
    return path


def load(path):
    profile = json.load(open(path))
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", [])}
    return profile, nodes, parent


def busy_samples(profile, nodes):
    """(time, node id, delta) of every non-idle sample."""
    t = profile["startTime"]
    for sample, delta in zip(profile["samples"], profile["timeDeltas"]):
        t += delta
        if nodes[sample]["callFrame"]["functionName"] != "(idle)":
            yield t, sample, delta


def summarise(path, top):
    profile, nodes, parent = load(path)
    self_fn, self_file = collections.Counter(), collections.Counter()
    total_fn, total_file = collections.Counter(), collections.Counter()
    busy = 0
    for _, sample, delta in busy_samples(profile, nodes):
        busy += delta
        frame = nodes[sample]["callFrame"]
        self_fn[(frame["functionName"] or "(anon)", short(frame["url"]))] += delta
        self_file[short(frame["url"])] += delta
        seen_fn, seen_file, at = set(), set(), sample
        while at is not None:
            frame = nodes[at]["callFrame"]
            key = (frame["functionName"] or "(anon)", short(frame["url"]))
            if key not in seen_fn:
                seen_fn.add(key)
                total_fn[key] += delta
            if key[1] not in seen_file:
                seen_file.add(key[1])
                total_file[key[1]] += delta
            at = parent.get(at)
    wall = (profile["endTime"] - profile["startTime"]) / 1e6
    print(f"== {os.path.basename(path)}: wall {wall:.2f} s, busy {busy / 1e6:.2f} s")
    for title, counter in (("self by function", self_fn), ("self by file", self_file),
                           ("total by function", total_fn), ("total by file", total_file)):
        print(f"-- {title}")
        for key, value in counter.most_common(top):
            name = key if isinstance(key, str) else f"{key[0]}  [{key[1]}]"
            print(f"{value / 1e6:8.2f} s  {name}")


def log_time(text, needle):
    match = re.search(r"^(\S+?)\+00:00 [^\n]*" + re.escape(needle), text, re.M)
    if not match:
        return None
    stamp = datetime.datetime.fromisoformat(match.group(1))
    return stamp.replace(tzinfo=datetime.timezone.utc).timestamp()


def phases(log_path, directory):
    files = sorted(glob.glob(os.path.join(directory, "*.cpuprofile")))
    profiles = {f: load(f) for f in files}
    # The gateway's main thread: the first thread (`.0.`) of a process with the most samples.
    mains = [f for f in files if os.path.basename(f).split(".")[4] == "0"]
    main = max(mains, key=lambda f: len(profiles[f][0]["samples"]))
    pid = os.path.basename(main).split(".")[3]
    text = open(log_path, errors="replace").read()
    stamps = re.findall(r"^(\S+?)\+00:00", text, re.M)
    last = datetime.datetime.fromisoformat(stamps[-1]).replace(tzinfo=datetime.timezone.utc)
    end = profiles[main][0]["endTime"]
    on_profile = lambda wall: end - (last.timestamp() - wall) * 1e6
    names = ["to loading config", "to listening", "to first answer", "to exit"]
    cuts = [profiles[main][0]["startTime"]]
    for needle in ("loading configuration", "http server listening", "ended with stopReason"):
        wall = log_time(text, needle)
        cuts.append(on_profile(wall) if wall is not None else cuts[-1])
    cuts.append(float("inf"))
    rows = collections.defaultdict(lambda: [0.0] * len(names))
    for path, (profile, nodes, _) in profiles.items():
        own = os.path.basename(path).split(".")[3] == pid
        kind = "main thread" if path == main else ("worker threads" if own else "helper processes")
        for t, _, delta in busy_samples(profile, nodes):
            for i in range(len(names)):
                if cuts[i] <= t < cuts[i + 1]:
                    rows[kind][i] += delta / 1e6
    walls = [f"{names[i]} {(cuts[i + 1] - cuts[i]) / 1e6:.1f} s" for i in range(3)]
    print("phase walls: " + ", ".join(walls))
    print(f"{'busy CPU (s)':18s}" + "".join(f"{n:>18s}" for n in names))
    for kind in ("main thread", "worker threads", "helper processes"):
        print(f"{kind:18s}" + "".join(f"{v:18.2f}" for v in rows[kind]))


def main(args):
    if len(args) == 3 and args[0] == "--phases":
        phases(args[1], args[2])
        return 0
    top = 20
    if len(args) >= 2 and args[0] == "--top":
        top, args = int(args[1]), args[2:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    for path in args:
        summarise(path, top)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
