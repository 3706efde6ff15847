"""Training the models, and rebuilding what ships from its recipe."""
