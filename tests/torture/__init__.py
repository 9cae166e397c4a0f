"""The second torture battery (issue 17): where ``tests/test_torture.py`` does not go: damaged
files, forks, concurrency across objects, resource limits, a disk that fills up, clients that
vanish. One file per suite."""
