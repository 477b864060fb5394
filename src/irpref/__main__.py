"""``python -m irpref``: the same as the ``irpref`` command."""

import sys

from irpref.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
