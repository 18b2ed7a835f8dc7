"""Exercise definitions, one module per course module: ``m00.py`` holds exercises ``00.1``, ``00.2``, ...

Each file defines ``EXERCISES``: a list of :class:`torchcourse.grading.checks.Exercise` with the
reference answer, the inputs the check uses, the hints, and typical wrong answers
(the test-suite proves each is rejected).
"""
