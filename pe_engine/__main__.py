"""`python -m pe_engine`: the explainer's command line, which lives with the page's host layer
(pe_engine/explain/cli.py); the engine itself knows nothing of the page."""
from .explain.cli import main

raise SystemExit(main())
