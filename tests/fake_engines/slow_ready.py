#!/usr/bin/env python3
"""Fake UCI engine for the match-runner tests: answers the first ``isready`` after each
``ucinewgame`` late (an engine still loading when a game starts), then moves at once.

Usage: python3 slow_ready.py [T]   (T = the delay in tenths of a second, default 10)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minichess import run  # noqa: E402

run("slowready", after=int(sys.argv[1]) if len(sys.argv) > 1 else 10)
