#!/usr/bin/python3
"""Stand-in for torchrun's elastic agent (torch.distributed.elastic): run
as `python3 .../torchrun --nproc-per-node N --pid-file F train.py`, it
starts N workers with one command line (`python3 -u train.py`, their rank in
the environment, as the agent does), writes their PIDs to F, and when a
worker exits restarts the whole worker group 0.2 s later (max_restarts),
rewriting F. SIGTERM stops the workers and the agent."""
import os
import signal
import subprocess
import sys
import time

argv = sys.argv[1:]
n = int(argv[argv.index("--nproc-per-node") + 1])
pid_file = argv[argv.index("--pid-file") + 1]
script = argv[-1]
workers = []


def start():
    global workers
    workers = [subprocess.Popen([sys.executable, "-u", script], env={**os.environ, "LOCAL_RANK": str(r)})
               for r in range(n)]
    with open(pid_file + ".tmp", "w") as f:
        f.write(" ".join(str(w.pid) for w in workers) + "\n")
    os.rename(pid_file + ".tmp", pid_file)


def stop(signum, frame):
    for w in workers:
        w.terminate()
    sys.exit(0)


signal.signal(signal.SIGTERM, stop)
start()
for _ in range(3):  # --max-restarts 3
    while all(w.poll() is None for w in workers):
        time.sleep(0.05)
    for w in workers:
        if w.poll() is None:
            w.terminate()
            w.wait()
    time.sleep(0.2)
    start()
while True:
    time.sleep(1)
