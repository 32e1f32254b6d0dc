#!/usr/bin/python3
"""Stand-in for `python3 -m sglang.launch_server --tp N`: a launcher that
forks one scheduler per tensor-parallel rank with SGLang's process title
(argv[0] = "sglang::scheduler_TP<r>"), writes their PIDs to a file, and on
SIGTERM stops its workers and exits, as the real launcher does.

--workers-ignore-term: the workers ignore SIGTERM (as `trap '' TERM` makes
a process do; the ignored disposition survives exec), and the launcher
gives them one second before it exits without them: they are left running,
holding their GPUs, adopted by init."""
import os
import signal
import sys
import time

tp = int(sys.argv[sys.argv.index("--tp") + 1])
pid_file = sys.argv[sys.argv.index("--pid-file") + 1]
workers_ignore_term = "--workers-ignore-term" in sys.argv
workers = []
for rank in range(tp):
    pid = os.fork()
    if pid == 0:
        if workers_ignore_term:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.execv("/bin/sleep", [f"sglang::scheduler_TP{rank}", "600"])
    workers.append(pid)


def stop(signum, frame):
    for w in workers:
        try:
            os.kill(w, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 1.0
    for w in workers:
        while True:
            try:
                done, _ = os.waitpid(w, os.WNOHANG if workers_ignore_term else 0)
            except ChildProcessError:
                break
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.05)
    sys.exit(0)


signal.signal(signal.SIGTERM, stop)
with open(pid_file + ".tmp", "w") as f:
    f.write(" ".join(map(str, workers)) + "\n")
os.rename(pid_file + ".tmp", pid_file)
while True:
    time.sleep(1)
