#!/usr/bin/env python3
"""Write the small seeded random NNUE net the tests use: uci_engine/nets/test_h32_screlu.nnue.

Random weights (not trained; no playing strength): H = 32, SCReLU, seed 11, quantised like a
trained net (QA 255, QB 64, scale 400). The file is committed; rerun to regenerate it
bit-identically: python scripts/make_test_net.py [--out PATH]
"""
import argparse
import os

from uci_engine.nnue_file import NETS_DIR, random_net, save_net

TEST_NET = "test_h32_screlu.nnue"
HIDDEN = 32
SEED = 11


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(NETS_DIR, TEST_NET))
    args = ap.parse_args(argv)
    n = save_net(args.out, random_net(HIDDEN, SEED))
    print(f"wrote {args.out} ({n} bytes)")


if __name__ == "__main__":
    main()
