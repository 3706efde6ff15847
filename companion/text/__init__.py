"""Pure text processing, no I/O: sentences and cited statements (segment), languages (language),
lexical retrieval (retrieve), claims in context and atomic claims (claims), citation URLs and
the links that open a source at a quote (urls, weburl)."""
