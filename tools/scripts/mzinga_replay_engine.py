#!/usr/bin/env python3
"""A UHP "engine" that knows only recorded positions: it answers `validmoves` with the reply
Mzinga gave there, so tools can compare another engine with Mzinga without running Mzinga.

Usage: mzinga_replay_engine.py RECORDING.tsv [--drop-one]

RECORDING.tsv holds one position a line: a GameString, a TAB, and Mzinga's exact `validmoves`
reply there (`#` lines are comments), as in
engine-tests/data/mzinga-spelling/mzinga-validmoves.tsv. Positions are told apart by their game
type and moves; the state and turn fields are not compared.

Commands:
- `info`: `id mzinga-replay`;
- `newgame <GameString>`: a recorded position, echoed back (`err` for any other);
- `validmoves`: the recorded reply (`--drop-one` leaves its last move out, so that a check of
  the comparing tool can see it report a difference);
- `exit`; anything else (`play`, `undo`, `bestmove`, ...) is `err`.
Every reply ends with `ok`, as UHP has it.
"""
import sys


def key(game_string):
    """Game type and moves of a GameString, without the state and turn fields."""
    fields = [f.strip() for f in game_string.strip().split(";")]
    return (fields[0],) + tuple(f for f in fields[3:] if f)


def load(path):
    replies = {}
    with open(path, encoding="utf-8-sig") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line.strip() or line.startswith("#"):
                continue
            game, reply = line.split("\t")
            replies[key(game)] = (game, reply)
    return replies


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    drop_one = "--drop-one" in sys.argv[1:]
    if len(args) != 1:
        sys.exit("usage: mzinga_replay_engine.py RECORDING.tsv [--drop-one]")
    replies = load(args[0])
    current = None

    def say(*lines):
        for line in lines:
            sys.stdout.write(line + "\n")
        sys.stdout.write("ok\n")
        sys.stdout.flush()

    say("id mzinga-replay")
    for line in sys.stdin:
        words = line.strip().split(None, 1)
        if not words:
            continue
        command = words[0].lower()
        rest = words[1] if len(words) > 1 else ""
        if command == "exit":
            break
        if command == "info":
            say("id mzinga-replay")
        elif command == "newgame":
            found = replies.get(key(rest)) if ";" in rest else None
            if found is None:
                say("err not a recorded position")
            else:
                current = found
                say(current[0])
        elif command == "validmoves":
            if current is None:
                say("err no recorded position loaded")
            else:
                moves = current[1].split(";")
                if drop_one and len(moves) > 1:
                    moves = moves[:-1]
                say(";".join(moves))
        else:
            say(f"err '{command}' is not supported by the replay engine")


if __name__ == "__main__":
    main()
