"""Runs the Gather model of make_gather_model.py through the Python package
with an index out of range, and prints the exception's class and message."""
import sys

import numpy as np

import graphc

model = graphc.load(sys.argv[1])
try:
    model.run(np.array([1, 7], np.int64))
    print("no error")
except graphc.GraphcError as error:
    print(type(error).__name__ + ":", error)
