"""Contracts of intended work: signed records, the open and close gates, reconciliation, carry-over."""
