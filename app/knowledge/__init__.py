"""The team's docs, indexed so answers can cite them."""
