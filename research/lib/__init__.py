"""What the other subpackages share: the sets read as the companion sees them, site chrome,
other builds."""
