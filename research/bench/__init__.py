"""Speed, memory and load of a real companion."""
