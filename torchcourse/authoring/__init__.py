"""The tools that author and publish the course: ``build`` (exercises from solutions, stamps,
navigation, execution), ``guide`` (docs/INSTRUCTORS.md), ``site`` (the book), ``colab``,
``drift`` (the suite on another torch); ``course`` is the table of modules they all read.
Nothing here is imported by a learner's notebook except ``course.markdown_table`` in 00."""
