"""UCI_Elo node-law constants for :mod:`uci_engine.strength` (scripts/calibrate_elo.py regenerates this module; do not edit).

This version is transcribed from the first calibration (2026-11-23, commit 4555095, the
hand-crafted evaluation; docs/calibration.md), made before the script existed. Its record
names no net: the default engine is now the NNUE, about 400 Elo stronger (issue 32), so
every level plays above its label until scripts/calibrate_elo.py is run
(docs/calibration-elo-plan.md); tests/test_calibration_records.py marks that as an
expected failure.
"""

RECORD = {'evaluation': 'hand-crafted',
 'net': None,
 'net_sha256': None,
 'engine_commit': '4555095',
 'bench': None,
 'date': '2026-11-23',
 'command': 'uci-engine-match -engine cmd=uci-engine name=ours option.UCI_LimitStrength=true '
            'option.UCI_Elo=$X -engine cmd=/usr/games/stockfish name=sf '
            'option.UCI_LimitStrength=true option.UCI_Elo=$X option.Threads=1 "option.Move '
            'Overhead=100" -each proto=uci tc=5+0.05 option.Hash=16 -games 2 -rounds 20 '
            '-repeat -concurrency 2 -recover -openings '
            'file=tests/data/openings/noob_2moves.epd format=epd order=random -srand $X',
 'ours_cmd': 'uci-engine',
 'opponent': '/usr/games/stockfish (UCI_LimitStrength, Threads 1, Move Overhead 100)',
 'tc': '5+0.05',
 'fit': {'anchor': 1530,
         'anchor_se': None,
         'per_doubling': 90,
         'per_doubling_se': None,
         'supported': [1320, 2100]},
 'games_per_level': {'1350': 40, '1600': 80, '2000': 40},
 'matches': [],
 'verify': [{'mode': 'verify',
             'sf_elo': 1350,
             'uci_elo': 1350,
             'games': 40,
             'tc': '5+0.05',
             'wins': 18,
             'losses': 20,
             'draws': 2,
             'penta': [6, 0, 8, 2, 4],
             'elo': 1333,
             'elo_error': 114,
             'smoothed': False,
             'faults': {},
             'date': '2026-11-23'},
            {'mode': 'verify',
             'sf_elo': 1600,
             'uci_elo': 1600,
             'games': 80,
             'tc': '5+0.05',
             'wins': 31,
             'losses': 48,
             'draws': 1,
             'penta': [14, 0, 20, 1, 5],
             'elo': 1525,
             'elo_error': 76,
             'smoothed': False,
             'faults': {},
             'date': '2026-11-23'},
            {'mode': 'verify',
             'sf_elo': 2000,
             'uci_elo': 2000,
             'games': 40,
             'tc': '5+0.05',
             'wins': 14,
             'losses': 22,
             'draws': 4,
             'penta': [4, 4, 10, 0, 2],
             'elo': 1930,
             'elo_error': 91,
             'smoothed': False,
             'faults': {},
             'date': '2026-11-23'}],
 'note': 'the eight node-bound matches of the fit (two rounds at these levels and a pilot of '
         'fixed node counts) were not recorded one by one; the range ends at 2100, our full '
         'strength at 5+0.05 then (about 2110 over 140 games)'}

NODES_AT_ANCHOR = 1000
ELO_ANCHOR = 1530
ELO_PER_NODE_DOUBLING = 90
ELO_MIN = 1320
ELO_MAX = 2100
