"""DTrace for Linux from Python: compile a D program to eBPF, run it, and
receive what it records as dicts with the keys of dtrace's JSON output
(``-O json``; see docs/JSON.md in the project).

    import dtrace

    c = dtrace.Consumer('syscall::openat:entry { printf("%s", execname); }',
                        quiet=True)
    c.go()
    for event in c.events(timeout=5.0):
        print(event["output"])

Tracing needs root (or CAP_BPF and CAP_PERFMON) on a kernel with eBPF.
"""

import json
import time

from ._dtrace import Consumer as _Consumer

__all__ = ["Consumer"]


class Consumer:
    """One D program's tracing session.

    ``Consumer(script, **options)`` compiles and loads ``script``; the keyword
    arguments are dtrace's ``-x`` options (``quiet=True``, ``bufsize="4m"``,
    ``switchrate=100``). A program that does not compile raises
    ``RuntimeError`` with dtrace's message.
    """

    def __init__(self, script, **options):
        self._c = _Consumer(script, **options)
        self._ended = False

    def go(self):
        """Fire BEGIN and enable the program's probes."""
        self._c.go()

    def events(self, timeout=None):
        """Yield each event (a dict in the JSON schema) as it arrives, until
        tracing ends (``exit()`` in the program, or ``stop()``), or ``timeout``
        seconds pass (None: no limit). The GIL is released while waiting."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = 0.2
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                wait = min(wait, left)
            lines, ended = self._c.poll(wait)
            for line in lines:
                yield json.loads(line)
            if ended:
                self._ended = True
                return

    def snapshot(self):
        """Every aggregation now: a list of dicts with ``aggregation-name`` and
        ``aggregation-data`` (rows with ``keys`` and the function's value)."""
        return json.loads(self._c.snapshot_json())

    def stop(self):
        """Stop tracing: END fires; ``events()`` then yields what remains and
        ends."""
        self._c.stop()

    @property
    def exit_status(self):
        """The status passed to ``exit()`` once tracing has ended, else None."""
        return self._c.exit_status
