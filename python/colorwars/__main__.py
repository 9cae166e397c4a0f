"""``python -m colorwars``: the command line, as the ``colorwars`` command."""

import sys

from colorwars.cli import main

if __name__ == "__main__":
    sys.exit(main())
