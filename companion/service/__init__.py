"""What a reader runs: the local HTTP API (server), the `citelens` command (cli), the login
service (autostart) and pairing with the extension, each on the Runtime (companion/runtime.py)
that builds the pipeline's parts once per process. The top of the stack: it may import every other
stage."""
