"""`fray demo <ruleset>`: scripted encounters played through the real command pipeline,
narrated and audited (`runner.py`), one module per ruleset for what is its own (the script,
any drawing), and the examples they read, shipped as package data (`examples/`)."""
