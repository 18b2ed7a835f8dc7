"""The benchmark (``python -m torchcourse.bench``, ``make bench``): ``runner`` times the
``rows`` of every group; ``workloads`` holds the headline implementations that the lessons
(05, 06, 09, 12, 13, 14) import too, so the lesson and the benchmark time the same code."""
