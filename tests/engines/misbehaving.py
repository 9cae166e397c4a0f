"""An engine that speaks the protocol until it misbehaves as told (tests/test_engine.py):
``python misbehaving.py MODE``, where MODE is ``illegal`` (answers a cell it may not play),
``offboard`` (a cell that is not on the board), ``garbage`` (not a bestmove line), ``silent``
(never answers go), ``crash`` (exits at go), ``long`` (a line over the protocol's limit),
``nohandshake`` (answers protocol with something else), ``slowstart`` (sleeps before the
handshake, longer than anyone waits) or ``chatty`` (at go, an ``info`` line every 5 ms until
``stop`` comes, then ``bestmove a1``: only a client that looks at its stop flag between lines
ever sends it)."""

import select
import sys
import time


def main() -> None:
    mode = sys.argv[1]
    position = ""
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "protocol":
            if mode == "nohandshake":
                print("uciok", flush=True)
                continue
            if mode == "slowstart":
                time.sleep(3600)
            print("protocol colorwars-engine 1 misbehaving 1.0", flush=True)
        elif command == "position":
            position = " ".join(words[1:])
            print("ok", flush=True)
        elif command == "go":
            if mode == "illegal":
                # Under colorwars rules a player's second move must go on an own cell: a cell it
                # does not own (or, at the first move, one already taken) is illegal. The board
                # row's first cell is taken by the opponent, or empty later: find a non-own cell.
                fields = position.split()
                me, board = fields[4], fields[3].replace("/", "")
                cells, i = [], 0
                while i < len(board):
                    if board[i] == ".":
                        cells.append("")
                        i += 1
                    else:
                        j = i
                        while board[j].isdigit():
                            j += 1
                        cells.append(board[j])
                        i = j + 1
                width = int(fields[0].split("x")[0])
                moved = fields[5]
                for k, owner in enumerate(cells):
                    if (me in moved and owner != me) or (me not in moved and owner):
                        print(f"bestmove {'abcdefgh'[k % width]}{k // width + 1}", flush=True)
                        break
            elif mode == "offboard":
                print("bestmove z99", flush=True)
            elif mode == "garbage":
                print("I resign, but in prose", flush=True)
            elif mode == "silent":
                time.sleep(3600)
            elif mode == "crash":
                print("segfault, nearly", file=sys.stderr, flush=True)
                sys.exit(3)
            elif mode == "long":
                print("info " + "x" * 70000, flush=True)
            elif mode == "chatty":
                while True:
                    print("info thinking", flush=True)
                    ready = select.select([sys.stdin], [], [], 0.005)[0]
                    if ready and sys.stdin.readline().split()[:1] == ["stop"]:
                        print("bestmove a1", flush=True)
                        break
        elif command == "quit":
            break
        else:
            print("ok", flush=True)


if __name__ == "__main__":
    main()
