#!/usr/bin/python3
"""Stops one thread of a process (and only that thread) for a while, as a
call that never returns would: PTRACE_SEIZE then PTRACE_INTERRUPT on the
thread id, which leaves the process's other threads running; PTRACE_DETACH
lets it go.  Usage: stop_thread.py TID SECONDS"""
import ctypes
import os
import sys
import time

PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_DETACH = 0x4206, 0x4207, 17
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
tid, seconds = int(sys.argv[1]), float(sys.argv[2])


def call(req):
    if libc.ptrace(req, tid, None, None) != 0:
        e = ctypes.get_errno()
        sys.exit(f"ptrace({req:#x}, {tid}): {os.strerror(e)}")


call(PTRACE_SEIZE)
call(PTRACE_INTERRUPT)
os.waitpid(tid, os.__dict__.get("__WALL", 0x40000000))
print("stopped", flush=True)
time.sleep(seconds)
call(PTRACE_DETACH)
