import sys

from bufferlab.cli import main

sys.exit(main())
