"""A table no kernel meets, for the test that check_kernels.py fails when
an enforced property fails (test/sass/CMakeLists.txt): 8 registers per
thread, enforced, for the gather template; every other template keeps its
row of expectations.py."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from expectations import *  # noqa: E402,F401,F403
from expectations import TEMPLATES, prop  # noqa: E402

TEMPLATES = dict(TEMPLATES)
TEMPLATES["gather"] = dict(TEMPLATES["gather"],
                           max_registers=prop(8, True, "no real kernel fits"))
