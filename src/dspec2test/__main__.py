from dspec2test.cli import main

raise SystemExit(main())
