"""The Python package against real probes (root, eBPF): every test here
needs the kernel, as CI runs it."""

import subprocess
import sys

import pytest

import dtrace


def test_events_are_dicts_in_the_json_schema():
    c = dtrace.Consumer(
        'BEGIN { printf("%s %d", "hello", 42); trace(7); exit(3); }', quiet=True
    )
    c.go()
    events = list(c.events(timeout=10))
    probes = [e for e in events if e.get("name") == "BEGIN"]
    assert len(probes) == 1
    begin = probes[0]
    for key in ("timestamp", "cpu", "id", "provider", "module", "function", "name", "output"):
        assert key in begin
    assert begin["provider"] == "dtrace"
    out = begin["output"]
    assert out[0]["message"] == "hello 42"
    assert {"value": "hello"} in out
    assert {"value": 42} in out
    assert {"value": 7} in out
    assert c.exit_status == 3


def test_snapshot_while_tracing_and_aggregations_at_exit():
    # A child that makes a known number of getppid() calls.
    prog = (
        "syscall::getppid:entry /pid == $1/ { @calls[probefunc] = count(); }"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", "import os,sys,time\nsys.stdin.readline()\nfor _ in range(25): os.getppid()\ntime.sleep(30)"],
        stdin=subprocess.PIPE,
    )
    try:
        c = dtrace.Consumer(prog.replace("$1", str(child.pid)), quiet=True)
        c.go()
        child.stdin.write(b"go\n")
        child.stdin.flush()
        snap = []
        for _ in range(50):
            list(c.events(timeout=0.1))
            snap = c.snapshot()
            rows = snap[0]["aggregation-data"] if snap else []
            if rows and rows[0]["count"] == 25:
                break
        assert snap[0]["aggregation-name"] == "calls"
        assert snap[0]["aggregation-data"] == [
            {"keys": [{"value": "getppid"}], "count": 25}
        ]
        c.stop()
        rest = list(c.events(timeout=10))
        assert any(
            o.get("aggregation-name") == "calls"
            for e in rest
            for o in e.get("output", [])
        )
        assert c.exit_status == 0
    finally:
        child.kill()
        child.wait()


def test_a_bad_program_raises_with_dtrace_s_message():
    with pytest.raises(RuntimeError) as err:
        dtrace.Consumer("BEGIN { nosuchfunction(); }")
    assert "nosuchfunction" in str(err.value)


def test_a_bad_option_raises():
    with pytest.raises(RuntimeError) as err:
        dtrace.Consumer("BEGIN { exit(0); }", nosuchoption=1)
    assert "nosuchoption" in str(err.value)


def test_the_gil_is_released_while_waiting():
    import threading

    c = dtrace.Consumer("tick-10s { exit(0); }", quiet=True)
    c.go()
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)

    t = threading.Thread(target=count)
    t.start()
    list(c.events(timeout=0.5))
    stop.set()
    t.join()
    c.stop()
    list(c.events(timeout=5))
    assert len(ticks) > 1000
