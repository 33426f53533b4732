#!/usr/bin/env python3
"""Fake UCI engine for the match-runner tests: lets its clock run out on its move N+1 (answers 0.3 s too late).

Usage: python3 flagger.py [N]   (N = number of good moves before the fault, default 3)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minichess import run  # noqa: E402

run("flag", after=int(sys.argv[1]) if len(sys.argv) > 1 else 3)
