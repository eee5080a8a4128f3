#!/usr/bin/env python3
"""Batch gait report: the same as ``humanbody report`` (see docs/report.md).

    python apps/humanbody_report.py data_folder --out report --mass 72 --height 1.80
"""

import sys

from humanbody.cli import main

if __name__ == "__main__":
    sys.exit(main(["report", *sys.argv[1:]]))
