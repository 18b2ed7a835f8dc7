"""How an answer is graded: ``check(id)`` runs an exercise's declaration (``exercises/mNN.py``)
through ``checks.evaluate``: cases, the learner's call, ``compare``, the rules (``rules``,
with ``growth`` and ``families`` behind the behavioural ones), one message."""
