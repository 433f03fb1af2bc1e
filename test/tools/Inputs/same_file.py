"""Exits 0 when two paths name the same file (device and inode), else 1.

usage: same_file.py A B"""
import os
import sys

sys.exit(0 if os.path.samefile(sys.argv[1], sys.argv[2]) else 1)
