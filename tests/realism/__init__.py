"""The realism development set: real catalogs, documented episodes, ground truth, the sweep.

``python -m tests.realism`` plays every episode and prints the table; docs/realism.md says
what is here and what fails.
"""
