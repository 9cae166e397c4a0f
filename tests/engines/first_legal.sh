#!/bin/sh
# A tiny engine in POSIX sh and awk, for tests/test_engine.py: it speaks the colorwars-engine
# protocol (protocol, isready, position NOTATION, go, setoption, quit) and always plays the
# first legal move in cell order, knowing the rules only as RULES.md §2 states them: a
# drop3 player's first move goes on an empty cell, later ones on an own cell; under the
# opening "none" any empty or own cell will do. Once the game is won, go is an error.
set -f  # the position's fields hold no patterns to expand
position=""
while IFS= read -r line; do
    # shellcheck disable=SC2086  # split the command into its words on purpose
    set -- $line
    case "${1:-}" in
        protocol) echo "protocol colorwars-engine 1 first-legal 1.0" ;;
        isready) echo "readyok" ;;
        setoption) echo "ok" ;;
        position)
            shift
            position="$*"
            echo "ok"
            ;;
        go)
            echo "$position" | awk '
            {
                rules = $2; board = $4; me = $5; moved = $6
                if ($7 != "-" && length($7) == $3 - 1) {  # all but one out: the game is won
                    print "error the game is over: no move to search"
                    exit
                }
                drop3 = (rules == "colorwars" || rules ~ /^drop3/)
                first = (index(moved, me) == 0)
                rows = split(board, row, "/")
                for (y = 1; y <= rows; y++) {
                    rest = row[y]
                    for (x = 0; length(rest) > 0; x++) {
                        if (substr(rest, 1, 1) == ".") {
                            owner = ""
                            rest = substr(rest, 2)
                        } else {
                            match(rest, /^[0-9]+[a-h]/)
                            owner = substr(rest, RLENGTH, 1)
                            rest = substr(rest, RLENGTH + 1)
                        }
                        if (drop3) legal = first ? owner == "" : owner == me
                        else legal = owner == "" || owner == me
                        if (legal) {
                            print "info work=1"
                            printf "bestmove %s%d\n", substr("abcdefghijklmnopqrstuvwxyz", x + 1, 1), y
                            exit
                        }
                    }
                }
                print "error no legal move"
            }'
            ;;
        quit) exit 0 ;;
        "") ;;
        *) echo "error unsupported command: $1" ;;
    esac
done
