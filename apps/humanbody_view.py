#!/usr/bin/env python3
"""Desktop entry point of the 3-D viewer: ``python apps/humanbody_view.py TRIAL [options]``.

The same as ``humanbody view``; all the logic lives in :mod:`humanbody.viewer`.
"""

import sys

from humanbody.cli import main

if __name__ == "__main__":
    sys.exit(main(["view", *sys.argv[1:]]))
