import sys

from torchcourse.bench.runner import main

sys.exit(main())
