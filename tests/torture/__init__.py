"""The torture suite: every public entry point driven with generated bad input (issue 8), and
the second battery (issue 17) that goes where the first does not: damaged files, forks,
concurrency across objects, resource limits, a disk that fills up, clients that vanish. One
file per suite; ``common.py`` holds what several share.

Each call must keep the promise: it succeeds or raises a ``ColorwarsError``, ``TypeError``,
``MemoryError`` or ``KeyboardInterrupt`` (never a plain ``ValueError``, ``RuntimeError``,
``OverflowError``, ``AttributeError``, ``UnicodeEncodeError``, ``IndexError`` or a
``PanicException``); a rejected call changes nothing; input of the wrong kind is rejected,
not cast. Calls that could abort the interpreter, allocate without bound or hang run in child
interpreters under a 4 GiB address-space limit, with a time bound; Ctrl-C must end a long call
with ``KeyboardInterrupt`` (the CLI: exit status 130, one line, no traceback).

Every test collects all the broken promises it finds and fails once, listing them grouped by
cause with one input that shows each. The number of inputs tried is printed at the end of the
session (``HYPOTHESIS_PROFILE=thorough`` tries about twenty times as many).
"""
