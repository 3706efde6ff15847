"""The NLI model: a models/<name>/ folder's config (folder), onnxruntime scoring pairs (infer),
and the CPU's int8 kernel family (cpu)."""
