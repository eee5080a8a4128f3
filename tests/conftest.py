import sys
from pathlib import Path

# tests import their helpers (_motion.py, ...) by module name
sys.path.insert(0, str(Path(__file__).resolve().parent))
