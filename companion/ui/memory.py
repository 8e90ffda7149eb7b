"""Keeps the kiosk's resident memory down on a 2 GB Pi (glibc's allocator only).

Why: glibc gives each thread that allocates its own malloc arena (the camera,
reader, voice and Kivy threads) and keeps freed memory in them; loading the
reader leaves tens of MiB of freed buffers behind. Capping the arenas at two and
handing free memory back now and then kept about 17 MiB off the kiosk's 30-second
footprint in the demo (``benchmarks/kiosk_start.py``), for no measurable time.
Elsewhere (musl, macOS, Windows) both are no-ops.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache

M_ARENA_MAX = -8  # mallopt's parameter numbers in glibc's malloc.h
M_MMAP_THRESHOLD = -3
#: Blocks this big or bigger get their own mapping, returned the moment they are freed
#: (camera frames, textures, the reader's buffers: 0.2-1 MiB each, ten a second).
FRAME_SIZED = 128 * 1024


@cache
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.malloc_trim  # noqa: B018 - glibc only
        libc.mallopt  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


def limit_arenas(n: int = 2) -> bool:
    """At most ``n`` malloc arenas, and frame-sized blocks mapped on their own; call
    before the worker threads start. Why the second: glibc raises its mapping threshold
    each time a big block is freed, after which frames come from the heap and leave it
    fragmented (it crept up while the demo played); a fixed threshold keeps them out."""
    libc = _libc()
    return bool(libc and libc.mallopt(M_ARENA_MAX, n) == 1 and libc.mallopt(M_MMAP_THRESHOLD, FRAME_SIZED) == 1)


def give_back() -> bool:
    """Return freed heap memory to the system (cheap: a few ms at most)."""
    libc = _libc()
    return bool(libc and libc.malloc_trim(0) == 1)
