#!/usr/bin/env python3
"""Measures how late `bestmove time T` answers, through the real binary over pipes.

Usage: bestmove_latency.py WAGGLE_BINARY [CALLS] [--option NAME=VALUE ...]

Loads the mid-game positions of engine-tests/data/perft-positions.tsv in turn, asks for
`bestmove time T` with T drawn uniformly from 0.1 s to 1 s (seeded), and times each call from
writing the command to reading its final `ok`. Prints one line per call and then the worst
overshoot (elapsed minus T) and the median.
"""
import os
import random
import statistics
import subprocess
import sys
import time


def main():
    binary = sys.argv[1]
    calls = int(sys.argv[2]) if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else 100
    extra = [a for a in sys.argv[2:] if a.startswith("--option") or "=" in a]
    root = os.path.dirname(os.path.abspath(__file__))
    data = os.path.join(root, "..", "..", "engine-tests", "data", "perft-positions.tsv")
    games = []
    with open(data, encoding="utf-8-sig") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            g = line.split("\t")[0]
            if g not in games:
                games.append(g)
    proc = subprocess.Popen([binary] + extra, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1)

    def read_until_ok():
        lines = []
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit("engine closed its output")
            line = line.rstrip("\n")
            if line == "ok":
                return lines
            lines.append(line)

    read_until_ok()  # the unprompted info
    rng = random.Random(42)
    overshoots = []
    for i in range(calls):
        game = games[i % len(games)]
        proc.stdin.write(f"newgame {game}\n")
        proc.stdin.flush()
        read_until_ok()
        limit = rng.uniform(0.1, 1.0)
        start = time.monotonic()
        proc.stdin.write(f"bestmove time 00:00:{limit:06.3f}\n")
        proc.stdin.flush()
        reply = read_until_ok()
        elapsed = time.monotonic() - start
        over = elapsed - round(limit, 3)
        overshoots.append(over)
        print(f"{i + 1:3d} limit {limit:.3f}s elapsed {elapsed:.3f}s over {over * 1000:+.1f} ms {reply[-1]}")
    proc.stdin.write("exit\n")
    proc.stdin.flush()
    proc.wait(timeout=5)
    print(f"worst overshoot {max(overshoots) * 1000:+.1f} ms, "
          f"median {statistics.median(overshoots) * 1000:+.1f} ms over {calls} calls")


if __name__ == "__main__":
    main()
