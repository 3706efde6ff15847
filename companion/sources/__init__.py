"""The cited pages: which addresses may be fetched, the fetch itself (the only network I/O), the
page cache, and a fetched page read into a Document (HTML by extract, PDF in a child process by
pdf, walls that stand in front of a page)."""
