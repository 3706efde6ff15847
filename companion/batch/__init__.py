"""Batch audits (`citelens audit-batch`): many captured answers through the same pipeline, its
journal on disk, the report's figures, and the same run on a Ray cluster."""
