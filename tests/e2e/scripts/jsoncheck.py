#!/usr/bin/env python3
"""Checks dtrace's structured output on stdin and prints a summary of it.

Usage: jsoncheck.py doc|ndjson

doc: the whole input must be exactly one JSON value, {"dtrace":{"probes":[...]}}.
ndjson: every line must be one JSON value (a probe object).
Python's json keeps integers exact. The summary has one line per probe object:
provider:module:function:name, then its output elements (or error/drop fields)
as compact JSON, timestamps and stack frames left out (they vary by run).
"""
import json
import sys


def summary(obj):
    assert isinstance(obj["timestamp"], int) and obj["timestamp"] > 0
    name = ":".join(obj[k] for k in ("provider", "module", "function", "name"))
    if "output" in obj:
        rest = [e for e in obj["output"] if "stack-frames" not in e]
        return name + " " + json.dumps(rest, separators=(",", ":"))
    extra = {k: v for k, v in obj.items()
             if k not in ("timestamp", "cpu", "id", "provider", "module", "function", "name")}
    return name + " " + json.dumps(extra, separators=(",", ":"), sort_keys=True)


def main():
    text = sys.stdin.read()
    if sys.argv[1] == "doc":
        doc = json.loads(text)  # raises on trailing data or truncation
        probes = doc["dtrace"]["probes"]
        assert list(doc) == ["dtrace"] and list(doc["dtrace"]) == ["probes"]
    else:
        probes = [json.loads(line) for line in text.splitlines()]
    for p in probes:
        print(summary(p))
    print("valid")


main()
