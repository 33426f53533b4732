#!/usr/bin/env python3
"""Fake UCI engine for the match-runner tests: exits (crashes) mid-game after N moves.

Usage: python3 crasher.py [N]   (N = number of good moves before the fault, default 3)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minichess import run  # noqa: E402

run("exit", after=int(sys.argv[1]) if len(sys.argv) > 1 else 3)
