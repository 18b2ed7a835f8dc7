"""The course's headline workloads, one implementation each.

The lessons (modules 05, 09, 12, 13) and the benchmark (`python -m torchcourse.bench`) import
these functions, so a number in a lesson and a row of the benchmark measure the same code.
One file per workload family; each function documents its bytes moved or FLOPs so a caller
can turn a time into GB/s or GFLOP/s.
"""
