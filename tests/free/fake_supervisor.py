#!/usr/bin/python3
"""Stand-in for a supervisor that runs several servers (a Python wrapper, as
supervisord runs programs): `fake_supervisor.py [--restart] PIDFILE -- CMD...
:: CMD...` starts each command as its child, writes their PIDs to PIDFILE,
forwards SIGTERM to every child still running and exits when they have.
Without --restart it does not restart a child that exits; with it, a child
that exits is started again half a second later (supervisord's
autorestart=true) and PIDFILE is rewritten."""
import os
import signal
import subprocess
import sys
import time

args = sys.argv[1:]
restart = args[0] == "--restart"
if restart:
    args = args[1:]
pid_file = args[0]
rest = args[args.index("--") + 1:]
commands, current = [], []
for word in rest:
    if word == "::":
        commands.append(current)
        current = []
    else:
        current.append(word)
commands.append(current)
children = [subprocess.Popen(c) for c in commands]
stopping = False


def write_pids():
    with open(pid_file + ".tmp", "w") as f:
        f.write(" ".join(str(c.pid) for c in children) + "\n")
    os.rename(pid_file + ".tmp", pid_file)


def forward(signum, frame):
    global stopping
    stopping = True
    for c in children:
        if c.poll() is None:
            c.send_signal(signal.SIGTERM)
    for c in children:
        c.wait()
    sys.exit(0)


signal.signal(signal.SIGTERM, forward)
write_pids()
while True:
    time.sleep(0.5)
    if not restart or stopping:
        continue
    for i, c in enumerate(children):
        if c.poll() is not None:
            children[i] = subprocess.Popen(commands[i])
            write_pids()
