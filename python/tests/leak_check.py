"""The leak check of test_leaks.py, shared with the other test files that use it: after a
warm-up, `calls` calls of fn must leave unchanged the reference counts of `args`, the number
of objects the garbage collector tracks (+- 200), the memory tracemalloc sees (< 64 KiB) and
the process's resident memory (< 8 MiB)."""

import gc
import os
import sys
import tracemalloc


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def assert_no_leaks(fn, args, calls=10_000):
    for _ in range(300):  # warm-up: caches, pools, interned objects
        fn()
    gc.collect()
    refs = [sys.getrefcount(a) for a in args]
    objects = len(gc.get_objects())
    rss = rss_bytes()
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        for _ in range(calls):
            fn()
        gc.collect()
        current, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    gc.collect()
    grown = current - base
    assert [sys.getrefcount(a) for a in args] == refs, "reference counts of the arguments changed"
    assert len(gc.get_objects()) - objects < 200, "gc-tracked objects grew by %d" % (
        len(gc.get_objects()) - objects
    )
    assert grown < 64 * 1024, "tracemalloc: %d bytes more after %d calls" % (grown, calls)
    assert rss_bytes() - rss < 8 * 1024 * 1024, "resident memory grew by %d bytes" % (
        rss_bytes() - rss
    )
