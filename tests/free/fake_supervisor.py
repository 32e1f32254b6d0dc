#!/usr/bin/python3
"""Stand-in for a supervisor that runs several servers (a Python wrapper, as
supervisord runs programs): `fake_supervisor.py PIDFILE -- CMD... :: CMD...`
starts each command as its child, writes their PIDs to PIDFILE, forwards
SIGTERM to every child still running and exits when they have. It does not
restart a child that exits."""
import os
import signal
import subprocess
import sys

pid_file = sys.argv[1]
rest = sys.argv[sys.argv.index("--") + 1:]
commands, current = [], []
for word in rest:
    if word == "::":
        commands.append(current)
        current = []
    else:
        current.append(word)
commands.append(current)
children = [subprocess.Popen(c) for c in commands]


def forward(signum, frame):
    for c in children:
        if c.poll() is None:
            c.send_signal(signal.SIGTERM)
    for c in children:
        c.wait()
    sys.exit(0)


signal.signal(signal.SIGTERM, forward)
with open(pid_file + ".tmp", "w") as f:
    f.write(" ".join(str(c.pid) for c in children) + "\n")
os.rename(pid_file + ".tmp", pid_file)
while True:
    signal.pause()
