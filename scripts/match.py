#!/usr/bin/env python3
"""cutechess-cli compatible match runner; see uci_engine/tools/match.py (``uci-engine-match``)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from uci_engine.tools.match import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
