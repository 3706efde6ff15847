"""The API's shapes (docs/api.md): a request body read into records (capture), records written
back as stream lines and audit cards (export), and positions in UTF-16 units (utf16)."""
