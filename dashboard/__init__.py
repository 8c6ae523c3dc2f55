"""AnonSet: conditional anonymity sets from public census statistics."""
