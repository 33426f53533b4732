#!/usr/bin/env python3
"""Strength ladder against installed Debian engines; see uci_engine/tools/ladder.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from uci_engine.tools.ladder import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
