"""Loads a model through the Python package with checksum verification off."""
import sys

import graphc

graphc.load(sys.argv[1], verify_checksum=False)
