"""``python -m uci_engine``: the same as the ``uci-engine`` console script."""
import sys

from .cli import main

sys.exit(main())
