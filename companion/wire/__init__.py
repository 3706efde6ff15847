"""The API's shapes (docs/api.md): a request body read into records (capture), records written
back as stream lines and audit cards (export), the results held for those cards (results), and
positions in UTF-16 units (utf16)."""
