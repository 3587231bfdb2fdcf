"""ck3raven's pure core: replies, addresses, policy. No I/O, no clock, no randomness, no framework."""
