"""The benches' CPU meter (bench/loadgen.py): what a serving process used in a window.

A thread that ends inside the window must not take its earlier CPU off the figure: the lab
with Redis has resolver threads that end during a run, and summing the threads' totals at
each end read its CPU a third low.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from loadgen import cpu_seconds_since, thread_cpu


def burn(seconds: float) -> float:
    """Use `seconds` of this thread's CPU; the CPU it used."""
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        sum(range(1000))
    return time.thread_time() - start


def test_a_thread_that_ends_in_the_window_takes_nothing_off() -> None:
    pid = [os.getpid()]
    go = threading.Event()

    def busy_then_idle() -> None:
        burn(0.1)  # before the window
        go.wait()

    worker = threading.Thread(target=busy_then_idle)
    worker.start()
    task = f"/proc/{pid[0]}/task/{worker.native_id}"
    while thread_cpu(pid).get(task, 0) < 0.1e9:
        time.sleep(0.01)
    before = thread_cpu(pid)
    go.set()
    worker.join()  # it ends in the window, 0.1 s of CPU behind it
    used = burn(0.05)
    measured = cpu_seconds_since(before, pid)
    assert used - 0.005 <= measured < used + 0.05
