#!/usr/bin/env python3
"""Runs a command with its stderr on a pseudo-terminal (stdout to /dev/null)
and writes what the terminal received to stdout, byte for byte; exits with
the command's exit status. usage: pty_stderr.py COMMAND [ARG...]"""
import os
import pty
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    master, slave = pty.openpty()
    child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    received = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not data:
            break
        received += data
    os.close(master)
    sys.stdout.buffer.write(received)
    sys.exit(child.wait())


main()
