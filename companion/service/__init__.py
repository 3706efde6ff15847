"""What a reader runs: the local HTTP API (server), the `citelens` command (cli), the login
service (autostart), pairing with the extension, held results, and the runtime that builds the
pipeline's parts once per process. The top of the stack: it may import every other stage."""
